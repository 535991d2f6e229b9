// The MCP server's limits: what a request may carry, and how much of a result goes back into a
// model's context (docs/mcp.md, "Limits").

/** A JSON-RPC request body; the control plane's own request limit (spec 1, Limits). */
export const mcpRequestBodyBytesMax = 64 * 1024;
/** Items of any one list a tool answers with; the rest is counted, not sent. */
export const resultItemsMax = 100;
/** Characters of any one string a tool answers with (an event name, a property value, a description). */
export const resultStringCharsMax = 500;
/** Characters of a whole tool answer: lists are cut shorter until the answer fits. */
export const resultTextCharsMax = 60_000;
/** Nesting a tool answer keeps; deeper values are replaced by a note. */
export const resultDepthMax = 12;
/** Items listed per call by list_insights and list_dashboards. */
export const listPageItemsMax = 100;
/** A Query IR document or a SQL statement sent to run_query or run_sql, as JSON text. */
export const toolDocumentCharsMax = 60_000;
/** Parameters of one run_sql statement. */
export const sqlParamsMax = 100;
/** Characters of a name, key, id or search text a tool takes. */
export const toolTextCharsMax = 200;
/** Person properties evaluate_flag overlays on the stored ones. */
export const flagPersonPropertiesMax = 50;
