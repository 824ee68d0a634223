import type { NameSettings } from './config-fix.js';
import type { NameProposal } from './name-search.js';

/**
 * What doctor says of the names it searched for: each one verified, or the names tried without one, then the settings
 * to paste whole into the config file's `api` (the names already there kept).
 */
export function proposalText(proposals: readonly NameProposal[], settings: NameSettings): string {
  const lines = ['names tried for the parameters above (within the same request cap):'];
  for (const proposal of proposals) {
    const where = `${proposal.endpoint} ${proposal.param} (sent as "${proposal.wire}")`;
    if (proposal.found) lines.push(`  ${where}: "${proposal.found.name}" is right: ${proposal.found.why}`);
    else {
      const tried = proposal.tried.length
        ? `none of ${proposal.tried.map((name) => `"${name}"`).join(', ')} is right`
        : 'no name was tried';
      lines.push(
        `  ${where}: ${tried}${proposal.stopped ? ` (${proposal.stopped})` : ''}; find its name in the API's documentation and set api.params.${proposal.param}`,
      );
    }
  }
  const entries = Object.entries(settings);
  if (entries.length) {
    lines.push(
      'set these in "api" of the config file, replacing what is there (or run bvsync doctor --fix to write them):',
    );
    for (const [key, value] of entries) lines.push(`  "${key}": ${JSON.stringify(value)}`);
  }
  return lines.join('\n');
}
