// The classic script entry (/sdk/v1/analytics.js): the API as window.svcAnalytics; recorder.js
// is looked for next to the script that loaded this one.
import * as api from "./api.ts";
import { setDefaultRecorderUrl } from "./recorder-location.ts";

const script = document.currentScript;
setDefaultRecorderUrl(script instanceof HTMLScriptElement && script.src ? new URL("recorder.js", script.src).href : null);
window.svcAnalytics = api;

declare global {
  interface Window {
    svcAnalytics: typeof api;
  }
}
