/** A SQL identifier, double-quoted, so column names like `day`, `date` or `rank` need no special care. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A SQL string literal (for paths and names in statements that take no parameters, like ATTACH and COPY). */
export function quoteLiteral(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
