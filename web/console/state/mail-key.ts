// The mail API key this tab is connected with, kept in this tab only (tab-stored.ts), as the
// gateway key is.
import { tabStored } from "./tab-stored.ts";

const stored = tabStored<string>("svc-analytics.mail-key", (text) => text, (key) => key);

export const mailKey = stored.current;
export const connectMail = (key: string) => stored.keep(key);
export const disconnectMail = () => stored.forget();
