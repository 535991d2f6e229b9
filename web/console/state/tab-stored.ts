// A value this tab keeps in sessionStorage (a service's key): it lasts while the tab does (a
// reload keeps it) and no other tab or later visit sees it.
import { type Signal, signal } from "@preact/signals";

export interface TabStored<T> {
  /** The value, or null when there is none. */
  current: Signal<T | null>;
  keep(value: T): void;
  forget(): void;
}

/** `read` turns the stored text back into a value, or null when it is not one (it may throw). */
export function tabStored<T>(storageName: string, read: (text: string) => T | null, write: (value: T) => string): TabStored<T> {
  const stored = (): T | null => {
    try {
      const text = sessionStorage.getItem(storageName);
      return text === null ? null : read(text);
    } catch {
      // Storage refused (privacy settings) or an unreadable value: none.
      return null;
    }
  };
  const current = signal<T | null>(stored());
  return {
    current,
    keep(value) {
      try {
        sessionStorage.setItem(storageName, write(value));
      } catch {
        // Without storage the value lasts until the page reloads.
      }
      current.value = value;
    },
    forget() {
      try {
        sessionStorage.removeItem(storageName);
      } catch {
        // Nothing was stored.
      }
      current.value = null;
    },
  };
}
