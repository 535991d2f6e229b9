// The mail API key this tab is connected with. Kept in sessionStorage, as the gateway key is:
// it lasts while the tab does (a reload keeps it) and no other tab or later visit sees it.
import { signal } from "@preact/signals";

const storageName = "svc-analytics.mail-key";

function stored(): string | null {
  try {
    return sessionStorage.getItem(storageName);
  } catch {
    // Storage refused (privacy settings): not connected.
    return null;
  }
}

export const mailKey = signal<string | null>(stored());

export function connectMail(key: string): void {
  try {
    sessionStorage.setItem(storageName, key);
  } catch {
    // Without storage the connection lasts until the page reloads.
  }
  mailKey.value = key;
}

export function disconnectMail(): void {
  try {
    sessionStorage.removeItem(storageName);
  } catch {
    // Nothing was stored.
  }
  mailKey.value = null;
}
