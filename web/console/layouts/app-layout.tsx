// The signed-in console inside a project: a sidebar (project switcher, the project's sections,
// the person and logging out) beside the page.
import type { ComponentChildren } from "preact";
import { useLocation } from "preact-iso";
import type { MeResponse, ProjectDto } from "../api/types.ts";
import { paths } from "../paths.ts";
import { Brand } from "../ui/brand.tsx";
import { MailIcon, MessageIcon } from "../ui/icons.tsx";
import { EmailBanner } from "./email-banner.tsx";
import { EnvironmentSwitcher } from "./environment-switcher.tsx";
import { ProjectSwitcher } from "./project-switcher.tsx";
import { isSectionCurrent, projectSections } from "./project-sections.ts";
import { UserPanel } from "./user-panel.tsx";

export function SkipLink() {
  return <a class="skip-link" href="#main">Skip to content</a>;
}

export function AppLayout({ me, project, children }: { me: MeResponse; project: ProjectDto; children: ComponentChildren }) {
  const { path } = useLocation();
  return (
    <div class="app-layout">
      <SkipLink />
      <aside class="sidebar">
        <div class="sidebar-brand">
          <Brand />
        </div>
        <ProjectSwitcher orgs={me.orgs} project={project} />
        <EnvironmentSwitcher project={project} />
        <nav class="sidebar-nav" aria-label="Project">
          <ul>
            {projectSections.map((section) => (
              <li key={section.label}>
                <a href={section.href(project.id)} class="nav-item" aria-current={isSectionCurrent(section, project.id, path) ? "page" : undefined}>
                  <section.Icon />
                  {section.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        {/* Services that are not a project's: the messaging gateway and the mail API have their own tenants and keys. */}
        <nav class="sidebar-services" aria-label="Services">
          <ul>
            <li>
              <a href={paths.messaging()} class="nav-item">
                <MessageIcon />
                Messaging
              </a>
            </li>
            <li>
              <a href={paths.email()} class="nav-item">
                <MailIcon />
                Mail
              </a>
            </li>
          </ul>
        </nav>
        <div class="sidebar-footer">
          <UserPanel user={me.user} />
        </div>
      </aside>
      <div class="app-main">
        <EmailBanner user={me.user} />
        <main id="main" class="content" tabIndex={-1}>
          {children}
        </main>
      </div>
    </div>
  );
}
