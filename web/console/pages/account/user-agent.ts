// A session's browser and system in a few words ("Chrome on Linux"), from its User-Agent
// header; the whole header stays available beside it. Tokens are tried most specific first:
// Edge and Opera say "Chrome" too, and Chrome says "Safari".

const browsers: readonly [RegExp, string][] = [
  [/HeadlessChrome\//, "Headless Chrome"],
  [/Edg(e|A|iOS)?\//, "Edge"],
  [/OPR\//, "Opera"],
  [/Firefox\/|FxiOS\//, "Firefox"],
  [/Chrome\/|CriOS\/|Chromium\//, "Chrome"],
  [/Version\/[\d.]+.*Safari\//, "Safari"],
  [/^curl\//, "curl"],
];

const systems: readonly [RegExp, string][] = [
  [/Android/, "Android"],
  [/iPhone|iPad|iPod/, "iOS"],
  [/Windows/, "Windows"],
  [/Mac OS X|Macintosh/, "macOS"],
  [/CrOS/, "ChromeOS"],
  [/Linux/, "Linux"],
];

const firstMatch = (text: string, table: readonly [RegExp, string][]) => table.find(([pattern]) => pattern.test(text))?.[1];

export function describeUserAgent(userAgent: string | null): string {
  if (!userAgent) return "Unknown device";
  const browser = firstMatch(userAgent, browsers);
  const system = firstMatch(userAgent, systems);
  if (browser && system) return `${browser} on ${system}`;
  return browser ?? system ?? "Other client";
}
