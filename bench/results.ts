// bench/RESULTS.md holds one section ("## ...") per benchmark; each benchmark replaces its own
// section and keeps the others, so running one does not erase another's figures.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const resultsPath = join(import.meta.dir, "RESULTS.md");
const title = "# Benchmark results\n";

/** Replaces the section whose heading starts with `## {headingStart}` (or appends it); `section` starts with that heading. */
export function writeResultsSection(headingStart: string, section: string): void {
  const text = existsSync(resultsPath) ? readFileSync(resultsPath, "utf8") : title;
  const [head, ...sections] = text.split(/^(?=## )/m);
  const mine = `## ${headingStart}`;
  const at = sections.findIndex((existing) => existing.startsWith(mine));
  if (at >= 0) sections[at] = section;
  else sections.push(section);
  const heading = head?.trim() ? head.trimEnd() : title.trimEnd();
  writeFileSync(resultsPath, [`${heading}\n`, ...sections.map((existing) => existing.trimEnd() + "\n")].join("\n"));
}
