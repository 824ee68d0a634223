import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { sourceFiles } from '../support/source-files.js';
import { describe, expect, it } from 'vitest';

/** src/cli/exit-codes.ts is the one home of the exit codes: a command names them, never writes their numbers. */

const isNumber = (node: ts.Node | undefined) => node !== undefined && ts.isNumericLiteral(node);
const namesExitCode = (node: ts.Node) =>
  (ts.isPropertyAccessExpression(node) && node.name.text === 'exitCode') ||
  (ts.isIdentifier(node) && node.text === 'exitCode');

/** Exit codes written as numbers: `process.exit(1)`, `exitCode = 1` (or `??=`, `===`), `exitCode: 1`, `new UsageError(m, 1)`. */
function literalExitCodes(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    const literal =
      (ts.isCallExpression(node) &&
        node.expression.getText(source) === 'process.exit' &&
        isNumber(node.arguments[0])) ||
      (ts.isBinaryExpression(node) &&
        (namesExitCode(node.left) || namesExitCode(node.right)) &&
        (isNumber(node.right) || isNumber(node.left))) ||
      (ts.isPropertyAssignment(node) && node.name.getText(source) === 'exitCode' && isNumber(node.initializer)) ||
      (ts.isNewExpression(node) && node.expression.getText(source) === 'UsageError' && isNumber(node.arguments?.[1]));
    if (literal) found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('exit codes', () => {
  it('finds a literal exit code in every form it looks for', () => {
    const samples = [
      'process.exit(1);',
      'process.exitCode = 2;',
      'process.exitCode ??= 1;',
      'if (error.exitCode === 0) done();',
      'const result = { exitCode: 1 };',
      "throw new UsageError('cannot read (' + describe(cause(error)) + ')', 1, { cause: error });",
    ];
    expect(samples.filter((text) => literalExitCodes('sample.ts', text).length === 1)).toEqual(samples);
    expect(
      literalExitCodes('sample.ts', 'process.exit(EXIT_NOT_DONE); new UsageError(message, EXIT_NOT_DONE);'),
    ).toEqual([]);
  });

  it('are named, not written as numbers, in src/cli', () => {
    const literal = sourceFiles('src/cli', /\.ts$/)
      .filter((file) => file !== 'src/cli/exit-codes.ts')
      .flatMap((file) => literalExitCodes(file, readFileSync(file, 'utf8')));
    expect(literal).toEqual([]);
  });
});
