import type { ApiClient } from '../../../api/client.js';
import { defineEndpoint } from '../../../api/endpoint.js';
import { queryEchoOf } from '../../../warehouse/provenance.js';
import { visibilityTopicsEndpoint, type VisibilityTopicsOptions } from '../../../streams/visibility-report.js';
import { ENDPOINTS } from '../endpoints.js';
import type { ProbeContext } from '../probe-context.js';

/** A query parameter no API reads, sent once to learn what `info.query` is. */
const ECHO_CANARY = 'bvsync_echo_check';

/** The visibility report (endpoint 16) with the canary beside its own query. */
const canaryReport = defineEndpoint({
  ...visibilityTopicsEndpoint,
  params: [...visibilityTopicsEndpoint.params, ECHO_CANARY],
  query: (o: VisibilityTopicsOptions) => ({ ...visibilityTopicsEndpoint.query(o), [ECHO_CANARY]: '1' }),
});

/**
 * Whether `info.query` is the query as applied, as the spec says, or the request repeated: a canary name no API reads
 * comes back in a repeated request, and then names are judged by invalid values instead (`ctx.echoMirrors`). One request.
 */
export async function probeEchoMirror(ctx: ProbeContext, client: ApiClient): Promise<void> {
  const answer = await ctx.ask(
    ENDPOINTS.visibility,
    [],
    async () => {
      for await (const page of client.read(canaryReport, ctx.brand, ctx.windows.wide)) return page;
      return undefined;
    },
    0,
  );
  if (!answer.ok) return;
  const echo = queryEchoOf(answer.value?.info);
  if (!echo || !(ECHO_CANARY in echo)) return;
  ctx.echoMirrors = true;
  ctx.addAssumption(
    false,
    `info.query repeats the request: it echoes ${ECHO_CANARY}, a name no API reads, so it does not show what the API applied; ` +
      'the names of the reports are judged by invalid values instead, and bvsync cannot learn the engines a row covers from it',
  );
}
