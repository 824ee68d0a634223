/**
 * Each statement of a SQL script without comments or blanks, for headings a person reads. It knows quotes and comments
 * only: DuckDB decides what the statements are, so a caller checks the counts match before trusting it.
 */
export function statementTexts(sql: string): string[] {
  const statements: string[] = [];
  let current = '';
  let i = 0;
  const flush = () => {
    const text = current.trim();
    if (text) statements.push(text);
    current = '';
  };
  while (i < sql.length) {
    const char = sql[i]!;
    const next = sql[i + 1];
    if (char === '-' && next === '-') {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? sql.length : end;
      current += ' ';
    } else if (char === '/' && next === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end === -1 ? sql.length : end + 2;
      current += ' ';
    } else if (char === "'" || char === '"') {
      const end = closingQuote(sql, i);
      current += sql.slice(i, end);
      i = end;
    } else if (char === ';') {
      flush();
      i++;
    } else {
      current += char;
      i++;
    }
  }
  flush();
  return statements;
}

// A quote doubled inside a quoted text is the quote itself ('it''s'); returns the index after the closing quote.
function closingQuote(sql: string, start: number): number {
  const quote = sql[start]!;
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === quote) {
      if (sql[i + 1] === quote) i += 2;
      else return i + 1;
    } else i++;
  }
  return sql.length;
}

/** A statement's first line, cut to `width` characters, to head its result. */
export function statementHeadline(statement: string, width = 72): string {
  const line =
    statement
      .split('\n')
      .map((text) => text.trim())
      .find(Boolean) ?? '';
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
}
