// The sections of a project the sidebar lists, in order. A section joins this list when its
// pages exist; none is shown before it works. "Get started" comes first (a project opens on
// it), then the data sections, Dashboards first.
import type { FunctionComponent } from "preact";
import { paths } from "../paths.ts";
import { ActivityIcon, BellIcon, ChartIcon, CirclesIcon, ClipboardListIcon, DashboardIcon, DatabaseIcon, FilmIcon, FlagIcon, FlaskIcon, RocketIcon, SettingsIcon, SparklesIcon, UsersIcon, WarningIcon } from "../ui/icons.tsx";

export interface ProjectSection {
  label: string;
  Icon: FunctionComponent<{ size?: number }>;
  href(projectId: string): string;
  /** Other pages the section is current on, beside its own and those under it (Persons: the groups pages). */
  also?(projectId: string): string[];
}

export const projectSections: readonly ProjectSection[] = [
  { label: "Get started", Icon: RocketIcon, href: paths.projectSetup },
  { label: "Dashboards", Icon: DashboardIcon, href: paths.dashboards },
  { label: "Insights", Icon: ChartIcon, href: paths.insights },
  { label: "Ask", Icon: SparklesIcon, href: (projectId) => paths.ask(projectId) },
  { label: "Findings", Icon: BellIcon, href: (projectId) => paths.findings(projectId) },
  { label: "Live events", Icon: ActivityIcon, href: paths.projectLive },
  { label: "Replays", Icon: FilmIcon, href: (projectId) => paths.replays(projectId) },
  { label: "Persons", Icon: UsersIcon, href: paths.persons, also: (projectId) => [paths.groups(projectId)] },
  { label: "Cohorts", Icon: CirclesIcon, href: paths.cohorts },
  { label: "Feature flags", Icon: FlagIcon, href: paths.flags },
  { label: "Experiments", Icon: FlaskIcon, href: paths.experiments },
  { label: "SQL", Icon: DatabaseIcon, href: (projectId) => paths.projectSql(projectId) },
  { label: "Tracking plan", Icon: ClipboardListIcon, href: paths.projectCatalog },
  { label: "Ingestion warnings", Icon: WarningIcon, href: paths.projectIngestionWarnings },
  // Always last.
  { label: "Settings", Icon: SettingsIcon, href: paths.projectSettings },
];

/** Whether `path` is the section's page, a page under it, or one of its `also` pages. */
export function isSectionCurrent(section: ProjectSection, projectId: string, path: string): boolean {
  return [section.href(projectId), ...(section.also?.(projectId) ?? [])].some((target) => path === target || path.startsWith(`${target}/`));
}
