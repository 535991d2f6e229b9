// The SDK's name and version as events carry them in `lib` (the version is package.json's).
export const libName = "svc-analytics-js";
export const libVersion = "0.1.0";
