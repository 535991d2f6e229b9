// The sections of a project the sidebar lists, in order. A section joins this list when its
// pages exist; none is shown before it works.
import type { FunctionComponent } from "preact";
import { paths } from "../paths.ts";
import { RocketIcon, SettingsIcon } from "../ui/icons.tsx";

export interface ProjectSection {
  label: string;
  Icon: FunctionComponent<{ size?: number }>;
  href(projectId: string): string;
}

export const projectSections: readonly ProjectSection[] = [
  { label: "Get started", Icon: RocketIcon, href: paths.projectSetup },
  // Always last.
  { label: "Settings", Icon: SettingsIcon, href: paths.projectSettings },
];
