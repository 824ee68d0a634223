import { CronExpressionParser } from 'cron-parser';
import cron from 'node-cron';
import { errorMessage } from '../format.js';

const FIELDS_5 = ['minute', 'hour', 'day of month', 'month', 'day of week'];
const FIELDS_6 = ['second', ...FIELDS_5];

/**
 * Why a schedule's cron expression cannot run, or undefined when it can. The scheduler needs both node-cron and
 * cron-parser to accept it (src/engine/schedule/scheduler.ts), so the config refuses what it would refuse later.
 */
export function cronProblem(expression: string): string | undefined {
  const fields = expression.trim().split(/\s+/).filter(Boolean);
  if (fields.length !== 5 && fields.length !== 6)
    return `expected 5 fields (or 6, with seconds first), got ${fields.length}`;
  const parserSays = cronParserProblem(expression);
  if (parserSays) return blame(fields, parserSays);
  if (!cron.validate(expression)) return 'node-cron, which runs the schedules, does not accept it';
  return undefined;
}

function cronParserProblem(expression: string): string | undefined {
  try {
    CronExpressionParser.parse(expression, { tz: 'UTC' });
    return undefined;
  } catch (error) {
    return errorMessage(error);
  }
}

/** Names the field at fault: each field alone, the others `*`, shows which one the parser refuses. */
function blame(fields: string[], message: string): string {
  const names = fields.length === 6 ? FIELDS_6 : FIELDS_5;
  for (let i = 0; i < fields.length; i++) {
    const alone = fields.map((field, k) => (k === i ? field : '*')).join(' ');
    const problem = cronParserProblem(alone);
    if (problem) return `${names[i]} "${fields[i]}": ${readable(problem)}`;
  }
  return readable(message);
}

function readable(message: string): string {
  const range = /got (value|range) (\S+) expected range (\S+)/.exec(message);
  if (range) return `${range[2]} is out of range ${range[3]}`;
  return message.charAt(0).toLowerCase() + message.slice(1);
}
