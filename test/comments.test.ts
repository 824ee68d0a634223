import { existsSync, readFileSync } from 'node:fs';
import { sourceFiles } from './support/source-files.js';
import { describe, expect, it } from 'vitest';

/**
 * A comment in src states an invariant or a reason in a line or two and names the test that proves it (issue #37).
 * History and measurements belong in commit bodies and docs/performance.md, so this guard fails on either.
 */

const SRC = 'src';

/** The most lines of text a comment block may hold outside the files allowed below; BARE lines are not text. */
const MAX_TEXT_LINES = 2;

/** Lines that only open or close a block comment, and so hold no text. */
const BARE = new Set(['/**', '/*', '*/']);

/** Phrases that tell a story rather than state what holds. */
const HISTORY = /\bbefore,|\bused to\b|\bwas found\b|\bwere found\b|\bmet in\b|\bchaos\b|\bincident\b/i;

/** Files whose comments may hold more than MAX_TEXT_LINES lines of text, each with why. */
const LONG_BLOCKS_ALLOWED: Readonly<Record<string, string>> = {
  'src/api/rate/adaptive-rate.ts':
    'its module doc states the rate algorithm that every function of the file implements',
  'src/cli/preflight.ts': 'its doc lists the preflight steps in order, with the exit code of each',
};

interface CommentBlock {
  file: string;
  line: number;
  lines: string[];
}

/** Runs of lines that are wholly comment (`//` lines, or the lines of a block comment); trailing comments are code's. */
function commentBlocks(file: string): CommentBlock[] {
  const blocks: CommentBlock[] = [];
  let current: CommentBlock | undefined;
  let inBlock = false;
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((text, index) => {
      const trimmed = text.trim();
      let isComment = inBlock;
      if (inBlock) inBlock = !trimmed.includes('*/');
      else if (trimmed.startsWith('//')) isComment = true;
      else if (trimmed.startsWith('/*')) {
        isComment = true;
        inBlock = !trimmed.slice(2).includes('*/');
      }
      if (!isComment) {
        current = undefined;
        return;
      }
      if (current === undefined) {
        current = { file, line: index + 1, lines: [] };
        blocks.push(current);
      }
      current.lines.push(trimmed);
    });
  return blocks;
}

const blocks = sourceFiles(SRC, /\.ts$/).flatMap(commentBlocks);

describe('comments in src', () => {
  it(`hold at most ${MAX_TEXT_LINES} lines of text a block, outside the files allowed`, () => {
    const long = blocks
      .map((block) => ({ block, text: block.lines.filter((line) => !BARE.has(line)).length }))
      .filter(({ block, text }) => text > MAX_TEXT_LINES && LONG_BLOCKS_ALLOWED[block.file] === undefined)
      .map(({ block, text }) => `${block.file}:${block.line} (${text} lines of text)`);
    expect(long).toEqual([]);
  });

  it('tell no history', () => {
    const stories = blocks.flatMap((block) => {
      const match = HISTORY.exec(block.lines.join(' '));
      return match ? [`${block.file}:${block.line}: "${match[0]}"`] : [];
    });
    expect(stories).toEqual([]);
  });

  it('name only tests that exist', () => {
    const named = blocks.flatMap((block) =>
      [...block.lines.join(' ').matchAll(/\btest\/[\w/.-]+\.test\.ts\b/g)].map((match) => ({ block, test: match[0] })),
    );
    const missing = named
      .filter(({ test }) => !existsSync(test))
      .map(({ block, test }) => `${block.file}:${block.line}: ${test}`);
    expect(named.length).toBeGreaterThan(0);
    expect(missing).toEqual([]);
  });

  it('allow long blocks only in files that exist', () => {
    expect(Object.keys(LONG_BLOCKS_ALLOWED).filter((file) => !existsSync(file))).toEqual([]);
  });
});
