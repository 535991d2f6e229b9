// Findings are evaluated in the project's default (production) environment, whatever the
// sidebar shows: the pages read findings and suggest event names with that environment's
// region token.
import type { ProjectDto } from "../../api/types.ts";
import type { RegionTokenSource } from "../../api/region-token.ts";
import { regionTokens } from "../../state/region-tokens.ts";

export function findingsEnvironment(project: ProjectDto): string {
  return (project.environments.find(({ is_default }) => is_default) ?? project.environments[0])!.name;
}

export const findingsTokens = (project: ProjectDto): RegionTokenSource => regionTokens(project.id, findingsEnvironment(project));
