import { Command } from 'commander';
import { applyPlan, type AppliedChange } from '../../manage/apply-plan.js';
import { applySummary, changeLine, planSummary } from '../../manage/change-lines.js';
import { EXIT_NOT_DONE } from '../exit-codes.js';
import { addManageOptions, withManagePlan, type ManageFlags } from './plan.js';
import { errorMessage } from '../../format.js';
import { descriptionOf } from '../commands.js';

export function applyCommand(): Command {
  return addManageOptions(new Command('apply').description(descriptionOf('apply'))).action(
    (file: string | undefined, flags: ManageFlags) =>
      withManagePlan(
        file,
        flags,
        'what was written stays written; run the same apply again to write the rest (it writes each item once)',
        async (plan, source, client) => {
          const lines = !flags.json;
          if (lines) process.stdout.write(`${planSummary(plan, source, '')}\n`);
          const settled: AppliedChange[] = [];
          const outcomes = await applyPlan(client, plan, {
            onRequest: (line) => lines && process.stdout.write(`  sent ${line}\n`),
            onItem: (change) => {
              settled.push(change);
              if (lines) process.stdout.write(`${changeLine(change)}\n`);
            },
          }).catch((error: unknown) => {
            // An apply stopped midway wrote what it settled, so --json still prints those items and their ids.
            if (flags.json)
              process.stdout.write(
                `${JSON.stringify({ brand: plan.brandId, items: settled, stopped: errorMessage(error) }, null, 2)}\n`,
              );
            throw error;
          });
          if (flags.json)
            process.stdout.write(`${JSON.stringify({ brand: plan.brandId, items: outcomes }, null, 2)}\n`);
          else process.stdout.write(`${applySummary(plan.brandId, outcomes)}\n`);
          if (outcomes.some((outcome) => outcome.action === 'rejected')) process.exitCode = EXIT_NOT_DONE;
        },
      ),
  );
}
