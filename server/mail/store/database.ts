// The mail service's store (server/sql-store): SQLite in the data directory, or the
// PostgreSQL of MAIL_DATABASE_URL when several processes serve the mail API.
import { openSqlStore, type SqlStore } from "../../sql-store/open.ts";
import { mailMigrations } from "./migrations.ts";

export type MailDatabase = SqlStore;

/** `location`: a postgres:// URL, or the path of the SQLite file. */
export const openMailDatabase = (location: string): Promise<MailDatabase> => openSqlStore(location, mailMigrations, "mail_migrations");
