// Findings, their rules and their destinations are one section: links between the three pages
// under each page's title.
import type { ProjectDto } from "../../api/types.ts";
import { paths } from "../../paths.ts";

export type FindingsTab = "findings" | "rules" | "destinations";

export function FindingsNav({ project, current }: { project: ProjectDto; current: FindingsTab }) {
  const links: { id: FindingsTab; label: string; href: string }[] = [
    { id: "findings", label: "Findings", href: paths.findings(project.id) },
    { id: "rules", label: "Rules", href: paths.findingRules(project.id) },
    { id: "destinations", label: "Destinations", href: paths.findingDestinations(project.id) },
  ];
  return (
    <nav class="sub-nav" aria-label="Findings, rules and destinations">
      {links.map((link) => (
        <a key={link.id} href={link.href} class="sub-nav-item" aria-current={link.id === current ? "page" : undefined}>{link.label}</a>
      ))}
    </nav>
  );
}
