// Remote config that posthog-js loads at start (`/array/{token}/config` as JSON, or
// `/array/{token}/config.js` as a script that stores it on window._POSTHOG_REMOTE_CONFIG).
// It tells the SDK what this service does: gzip bodies are welcome, events go to /i/v0/e/,
// and session replay, surveys, heatmaps, site apps and performance capture are off.

export function remoteConfig(token: string) {
  return {
    token,
    supportedCompression: ["gzip", "gzip-js"],
    // No flags to evaluate until feature flags exist (issue 7); the SDK then skips its flags call.
    hasFeatureFlags: false,
    captureDeadClicks: false,
    capturePerformance: false,
    autocapture_opt_out: false,
    autocaptureExceptions: false,
    analytics: { endpoint: "/i/v0/e/" },
    elementsChainAsString: true,
    sessionRecording: false,
    heatmaps: false,
    surveys: false,
    defaultIdentifiedOnly: true,
    siteApps: [],
  };
}

/** The script form: sets the token's entry of window._POSTHOG_REMOTE_CONFIG. */
export function remoteConfigScript(token: string): string {
  const entry = JSON.stringify({ config: remoteConfig(token), siteApps: [] });
  return `(function() {
  window._POSTHOG_REMOTE_CONFIG = window._POSTHOG_REMOTE_CONFIG || {};
  window._POSTHOG_REMOTE_CONFIG[${JSON.stringify(token)}] = ${entry};
})();
`;
}
