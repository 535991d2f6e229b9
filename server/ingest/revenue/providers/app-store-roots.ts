// The roots an App Store chain must end at: Apple Root CA - G3, bundled (apple-root-ca-g3.pem,
// SHA-256 63:34:3A:BF:B8:9A:6A:03:EB:B5:7E:9B:3F:5F:A7:BE:7C:4F:5C:75:6F:30:17:B3:A8:C4:88:C3:65:3E:91:79
// as Apple publishes it at https://www.apple.com/certificateauthority/), unless the setting
// APP_STORE_ROOT_CERTIFICATES names PEM files (comma-separated, each holding one or more
// certificates) that replace it: for a new Apple root, or for tests that sign with their own.
import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const appStoreRootsSetting = "APP_STORE_ROOT_CERTIFICATES";
export const bundledAppleRootPath = fileURLToPath(new URL("./apple-root-ca-g3.pem", import.meta.url));

export class AppStoreRootsError extends Error {}

const pemBlock = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The certificates of PEM text (each BEGIN/END CERTIFICATE block). */
export function certificatesOfPem(pem: string, source: string): X509Certificate[] {
  const blocks = pem.match(pemBlock) ?? [];
  if (blocks.length === 0) throw new AppStoreRootsError(`${source} holds no PEM certificate`);
  return blocks.map((block) => {
    try {
      return new X509Certificate(block);
    } catch {
      throw new AppStoreRootsError(`${source} holds a PEM block that is not a certificate`);
    }
  });
}

/** The trusted roots for `setting` (the value of APP_STORE_ROOT_CERTIFICATES; empty or unset: the bundled Apple root). */
export function loadAppStoreRoots(setting: string | undefined): X509Certificate[] {
  const paths = (setting ?? "").split(",").map((path) => path.trim()).filter((path) => path !== "");
  return (paths.length === 0 ? [bundledAppleRootPath] : paths).flatMap((path) => {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      throw new AppStoreRootsError(`cannot read ${path}: ${(error as Error).message}`);
    }
    return certificatesOfPem(text, path);
  });
}
