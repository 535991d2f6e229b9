// Who is signed in, read once from GET /app/me when the console opens and kept current by the
// pages that sign in, sign up or out. Pages wait while it is "loading".
import { signal } from "@preact/signals";
import { getMe, logOut } from "../api/console-api.ts";
import { ApiError } from "../api/errors.ts";
import { onSessionLost } from "../api/http.ts";
import type { MeResponse } from "../api/types.ts";
import { disconnectGateway } from "./gateway-key.ts";
import { disconnectMail } from "./mail-key.ts";
import { forgetRegionTokens } from "./region-tokens.ts";

export type Session =
  | { status: "loading" }
  | { status: "signed-out" }
  | { status: "signed-in"; me: MeResponse }
  | { status: "failed"; error: unknown };

export const session = signal<Session>({ status: "loading" });

export function signedIn(me: MeResponse): void {
  session.value = { status: "signed-in", me };
}

export function signedOut(): void {
  forgetRegionTokens();
  // The gateway and mail keys pasted in this tab belong to the person who pasted them.
  disconnectGateway();
  disconnectMail();
  session.value = { status: "signed-out" };
}

onSessionLost(() => {
  if (session.value.status === "signed-in") signedOut();
});

export async function loadSession(): Promise<void> {
  try {
    signedIn(await getMe());
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) signedOut();
    else session.value = { status: "failed", error };
  }
}

/** Ends the session; one that had already ended (401) counts as signed out too. */
export async function signOut(): Promise<void> {
  try {
    await logOut();
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 401)) throw error;
  }
  signedOut();
}
