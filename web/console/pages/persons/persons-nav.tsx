// Persons and groups are one section: links between the two lists under the page title.
import type { ProjectDto } from "../../api/types.ts";
import { paths } from "../../paths.ts";

export function PersonsNav({ project, current }: { project: ProjectDto; current: "persons" | "groups" }) {
  const links = [
    { id: "persons", label: "Persons", href: paths.persons(project.id) },
    { id: "groups", label: "Groups", href: paths.groups(project.id) },
  ];
  return (
    <nav class="sub-nav" aria-label="Persons and groups">
      {links.map((link) => (
        <a key={link.id} href={link.href} class="sub-nav-item" aria-current={link.id === current ? "page" : undefined}>{link.label}</a>
      ))}
    </nav>
  );
}
