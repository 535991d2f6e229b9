// Where recorder.js is when init() is not told: set by each entry point to the file next to
// the core's own (the ES module's URL, or the classic script's src).
let defaultUrl: string | null = null;

export function setDefaultRecorderUrl(url: string | null): void {
  defaultUrl = url;
}

export const defaultRecorderUrl = (): string | null => defaultUrl;
