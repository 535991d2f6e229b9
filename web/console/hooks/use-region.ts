// A page's way into its project's region: the region-token source of the environment the
// person is looking at (changes when the sidebar switches it).
import type { ProjectDto } from "../api/types.ts";
import type { RegionTokenSource } from "../api/region-token.ts";
import { currentEnvironment } from "../state/environment.ts";
import { regionTokens } from "../state/region-tokens.ts";

export interface RegionAccess {
  environment: string;
  tokens: RegionTokenSource;
}

export function useRegion(project: ProjectDto): RegionAccess {
  const environment = currentEnvironment(project);
  return { environment, tokens: regionTokens(project.id, environment) };
}
