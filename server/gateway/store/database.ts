// The gateway's store (server/sql-store): SQLite in the data directory for one replica, or the
// PostgreSQL of GATEWAY_DATABASE_URL, required for more than one (leases need a store every
// replica sees).
import { openSqlStore, type SqlStore } from "../../sql-store/open.ts";
import { gatewayMigrations } from "./migrations.ts";

export type GatewayDatabase = SqlStore;

/** `location`: a postgres:// URL, or the path of the SQLite file. */
export const openGatewayDatabase = (location: string): Promise<GatewayDatabase> => openSqlStore(location, gatewayMigrations, "gateway_migrations");
