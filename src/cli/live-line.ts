import { clearLine, cursorTo } from 'node:readline';

/** What the live line writes to: a terminal (`process.stderr` when it is one), or a fake one in tests. */
export interface TerminalStream {
  write(text: string): boolean;
  columns?: number;
}

/**
 * One status line at the bottom of a terminal, redrawn in place, with log lines printed above it. The line is cut to the
 * terminal's width, since a wrapped line cannot be cleared with one "clear line".
 */
export class LiveLine {
  private line = '';

  constructor(private readonly terminal: TerminalStream) {}

  /** Draws `text` in place of the line. */
  show(text: string): void {
    this.line = fitToWidth(text, this.terminal.columns);
    this.clear();
    this.terminal.write(this.line);
  }

  /** Prints `text` (one or more lines) above the line, which stays at the bottom. */
  printAbove(text: string): void {
    this.clear();
    this.terminal.write(text.endsWith('\n') ? text : `${text}\n`);
    if (this.line) this.terminal.write(this.line);
  }

  /** Leaves the line's last state on screen and moves below it, for what is printed next. */
  end(): void {
    if (this.line) this.terminal.write('\n');
    this.line = '';
  }

  private clear(): void {
    // Casts: readline types these for Writable streams, and they only call write().
    clearLine(this.terminal as NodeJS.WritableStream, 0);
    cursorTo(this.terminal as NodeJS.WritableStream, 0);
  }
}

function fitToWidth(text: string, columns: number | undefined): string {
  const width = columns && columns > 1 ? columns - 1 : Infinity;
  const chars = [...text];
  return chars.length <= width ? text : `${chars.slice(0, width - 1).join('')}…`;
}
