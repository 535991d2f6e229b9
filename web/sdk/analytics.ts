// The ES module entry (/sdk/v1/analytics.mjs, and the npm package's import): the API as named
// exports; recorder.js is looked for next to this file.
import { setDefaultRecorderUrl } from "./recorder-location.ts";

export * from "./api.ts";

setDefaultRecorderUrl(new URL("./recorder.js", import.meta.url).href);
