// The sections of a project the sidebar lists, in order. A section joins this list when its
// pages exist; none is shown before it works.
import type { FunctionComponent } from "preact";
import { paths } from "../paths.ts";
import { ActivityIcon, ClipboardListIcon, DatabaseIcon, FlagIcon, FlaskIcon, RocketIcon, SettingsIcon, WarningIcon } from "../ui/icons.tsx";

export interface ProjectSection {
  label: string;
  Icon: FunctionComponent<{ size?: number }>;
  href(projectId: string): string;
}

export const projectSections: readonly ProjectSection[] = [
  { label: "Get started", Icon: RocketIcon, href: paths.projectSetup },
  { label: "Live events", Icon: ActivityIcon, href: paths.projectLive },
  { label: "SQL", Icon: DatabaseIcon, href: (projectId) => paths.projectSql(projectId) },
  { label: "Tracking plan", Icon: ClipboardListIcon, href: paths.projectCatalog },
  { label: "Ingestion warnings", Icon: WarningIcon, href: paths.projectIngestionWarnings },
  { label: "Feature flags", Icon: FlagIcon, href: paths.flags },
  { label: "Experiments", Icon: FlaskIcon, href: paths.experiments },
  // Always last.
  { label: "Settings", Icon: SettingsIcon, href: paths.projectSettings },
];
