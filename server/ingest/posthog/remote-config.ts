// Remote config that posthog-js loads at start (`/array/{token}/config` as JSON, or
// `/array/{token}/config.js` as a script that stores it on window._POSTHOG_REMOTE_CONFIG).
// It tells the SDK what this service does: gzip bodies are welcome, events go to /i/v0/e/,
// and session replay, surveys, heatmaps, site apps and performance capture are off.

/** `hasFeatureFlags`: whether the key's environment has an enabled flag (without one the SDK skips its flags call). */
export function remoteConfig(token: string, hasFeatureFlags: boolean) {
  return {
    token,
    supportedCompression: ["gzip", "gzip-js"],
    hasFeatureFlags,
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
export function remoteConfigScript(config: ReturnType<typeof remoteConfig>): string {
  const entry = JSON.stringify({ config, siteApps: [] });
  return `(function() {
  window._POSTHOG_REMOTE_CONFIG = window._POSTHOG_REMOTE_CONFIG || {};
  window._POSTHOG_REMOTE_CONFIG[${JSON.stringify(config.token)}] = ${entry};
})();
`;
}
