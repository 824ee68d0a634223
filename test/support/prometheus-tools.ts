import { spawnSync } from 'node:child_process';

/** Debian's packages that ship each tool `.ci/run` installs: prometheus (promtool), prometheus-alertmanager (amtool), prometheus-pushgateway. */
const TOOLS = ['promtool', 'amtool', 'prometheus', 'prometheus-alertmanager', 'prometheus-pushgateway'] as const;
export type PrometheusTool = (typeof TOOLS)[number];

function onPath(tool: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' }).status === 0;
}

/** The tools missing from PATH among those given. */
export function missingTools(...tools: PrometheusTool[]): PrometheusTool[] {
  return tools.filter((tool) => !onPath(tool));
}

/** Why a test that needs these tools is skipped, or undefined when none is missing. */
export function toolsSkipReason(...tools: PrometheusTool[]): string | undefined {
  const missing = missingTools(...tools);
  if (missing.length === 0) return undefined;
  return `${missing.join(', ')} not installed (apt-get install prometheus prometheus-alertmanager prometheus-pushgateway): skipped`;
}

/** Runs a tool; its output, or a thrown error with its output. */
export function runTool(tool: PrometheusTool, args: string[]): { status: number | null; output: string } {
  const result = spawnSync(tool, args, { encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}
