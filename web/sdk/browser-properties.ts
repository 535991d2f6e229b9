// Properties every event carries about the browser and the page: read from the user agent
// and the window at capture time (the viewport and the URL change during a page's life).

interface Named {
  name: string;
  pattern: RegExp;
}

// Order matters: Edge and Opera say Chrome too, Chrome says Safari.
const browsers: Named[] = [
  { name: "Edge", pattern: /Edg(?:e|A|iOS)?\/([\d.]+)/ },
  { name: "Opera", pattern: /OPR\/([\d.]+)/ },
  { name: "Samsung Internet", pattern: /SamsungBrowser\/([\d.]+)/ },
  { name: "Firefox", pattern: /(?:Firefox|FxiOS)\/([\d.]+)/ },
  { name: "Chrome", pattern: /(?:Chrome|CriOS)\/([\d.]+)/ },
  { name: "Safari", pattern: /Version\/([\d.]+).*Safari/ },
];

const systems: Named[] = [
  { name: "Windows", pattern: /Windows/ },
  { name: "iOS", pattern: /iPhone|iPad|iPod/ },
  { name: "Android", pattern: /Android/ },
  { name: "Mac OS X", pattern: /Mac OS X/ },
  { name: "Chrome OS", pattern: /CrOS/ },
  { name: "Linux", pattern: /Linux/ },
];

function deviceType(agent: string): string {
  if (/iPad|Tablet/.test(agent) || (/Android/.test(agent) && !/Mobile/.test(agent))) return "Tablet";
  return /Mobi|iPhone|iPod/.test(agent) ? "Mobile" : "Desktop";
}

/** What does not change during the page's life, computed once. */
function agentProperties(): Record<string, unknown> {
  const agent = navigator.userAgent;
  const browser = browsers.find(({ pattern }) => pattern.test(agent));
  return {
    $browser: browser?.name ?? null,
    $browser_version: browser ? parseFloat(browser.pattern.exec(agent)![1]!) : null,
    $os: systems.find(({ pattern }) => pattern.test(agent))?.name ?? null,
    $device_type: deviceType(agent),
    $raw_user_agent: agent,
    $browser_language: navigator.language,
    $screen_width: screen.width,
    $screen_height: screen.height,
    $timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
  };
}

let fixed: Record<string, unknown> | null = null;

export function browserProperties(): Record<string, unknown> {
  fixed ??= agentProperties();
  return {
    ...fixed,
    $current_url: location.href,
    $host: location.host,
    $pathname: location.pathname,
    $viewport_width: innerWidth,
    $viewport_height: innerHeight,
  };
}
