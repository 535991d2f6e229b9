// Headless Chromium for the browser-SDK tests: Debian's `chromium` package, installed with
// apt-get when it is missing (debian-package.ts).
import { chromium, type Browser } from "playwright-core";
import { ensureDebianPackage } from "./debian-package.ts";

export const chromiumPath = "/usr/bin/chromium";

/** Installs Debian's chromium unless it is there already. */
export const ensureChromium = () => ensureDebianPackage("chromium", chromiumPath, "The browser tests");

/**
 * Headless Chromium as this machine allows it: no sandbox (tests run as root), and no
 * background networking (the closed network refuses it, and it is not what is tested).
 */
export function launchChromium(): Promise<Browser> {
  ensureChromium();
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}
