// One region-token source per project environment, in memory for the page's life (and
// forgotten at sign-out), so every page of a project shares its token.
import { issueRegionToken } from "../api/console-api.ts";
import { RegionTokenSource } from "../api/region-token.ts";

const sources = new Map<string, RegionTokenSource>();

export function regionTokens(projectId: string, environment: string): RegionTokenSource {
  const key = `${projectId}/${environment}`;
  let source = sources.get(key);
  if (!source) {
    source = new RegionTokenSource(() => issueRegionToken(projectId, environment));
    sources.set(key, source);
  }
  return source;
}

export function forgetRegionTokens(): void {
  sources.clear();
}
