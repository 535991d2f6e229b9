import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  schema: "./server/control/db/schema.ts",
  out: "./server/control/db/migrations",
});
