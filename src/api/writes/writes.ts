import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { ApiConfig } from '../../config/schema.js';
import { openTransport, type ApiClientOptions } from '../client.js';
import { contentIdempotencyKey, freshIdempotencyKey, stableIdempotencyKey } from './idempotency-key.js';
import { cappedPageSize, paginate } from '../paginate.js';
import { brandPath, buildQuery, withQuery, type QueryParams } from '../query.js';
import { pagedEnvelopeSchema } from '../schemas.js';
import { describeZodIssues } from '../validate.js';
import { WriteAnswerError, writtenPerInfo } from './write-answer-error.js';
import * as w from './write-schemas.js';

/** Track pages: 1 to 200 urls per request (spec, "Limits"; endpoint 1). */
export const TRACK_URLS_PER_REQUEST = 200;
/** Create topics: up to 20 topics per request (spec, "Limits"; endpoint 4). */
export const TOPICS_PER_REQUEST = 20;
/** Create topics: up to 100 scenarios per topic (spec, "Limits"; endpoint 4). */
export const SCENARIOS_PER_TOPIC = 100;
/** Create competitors: up to 50 per request (spec, "Limits"; endpoint 6). */
export const COMPETITORS_PER_REQUEST = 50;

/** A page to track (endpoint 1): its address, and a title, else the API takes the page's own. */
export interface TrackUrlItem {
  url: string;
  title?: string;
}

/** A topic to create (endpoint 4). */
export interface TopicItem {
  name: string;
  type: string;
  language: string;
  status: string;
  answer_engines: string[];
  persona_id?: number;
  scenarios: string[];
}

export interface CompetitorItem {
  name: string;
  website: string;
}

/** Endpoint 2: `group_id` null takes the page out of its group. */
export interface TrackedUrlChange {
  group_id?: number | null;
  title?: string;
  url?: string;
}

export interface PersonaChange {
  name?: string;
  description?: string;
  city?: string;
  country?: string;
  properties?: Record<string, unknown>;
}

export interface TagChange {
  name?: string;
  color?: string;
}

/** A bulk create either checks (`dryRun`, nothing written) or writes. */
export interface BulkOptions {
  dryRun: boolean;
}

/** A tracked page as `plan` compares it. */
export interface TrackedPage {
  id: number;
  url: string;
  title: string | undefined;
  groupId: number | undefined;
}

export interface CompetitorRecord {
  id: number;
  name: string;
  website: string | undefined;
  /** true: tracked (confirmed by the account); false: a suggestion of the platform. */
  tracked: boolean;
}

/** The write endpoints of the spec (1, 2, 4 to 9) and the two reads that tell what a brand already has (3, 7). */
export interface WriteClient {
  trackUrls(
    brandId: number,
    urls: TrackUrlItem[],
    groupId: number | undefined,
    options: BulkOptions,
  ): Promise<w.BulkAnswer<w.WrittenTrackedUrl>>;
  updateTrackedUrl(
    brandId: number,
    trackedUrlId: number,
    change: TrackedUrlChange,
  ): Promise<w.WrittenTrackedUrl | undefined>;
  createTopics(brandId: number, topics: TopicItem[], options: BulkOptions): Promise<w.BulkAnswer<w.WrittenTopic>>;
  restoreTopic(brandId: number, topicId: number): Promise<w.WrittenTopic | undefined>;
  createCompetitors(
    brandId: number,
    competitors: CompetitorItem[],
    options: BulkOptions,
  ): Promise<w.BulkAnswer<w.WrittenCompetitor>>;
  updatePersona(brandId: number, personaId: number, change: PersonaChange): Promise<w.WrittenPersona | undefined>;
  updateTag(brandId: number, tagId: number, change: TagChange): Promise<w.WrittenTag | undefined>;
  /** Every page the brand tracks (endpoint 3, all pages of the read). */
  trackedPages(brandId: number): Promise<TrackedPage[]>;
  /** The brand's competitors, suggestions of the platform included (endpoint 7). */
  competitors(brandId: number): Promise<CompetitorRecord[]>;
  close(): Promise<void>;
}

/**
 * The writes client; it waits out 429s unless `retryRateLimited` is false, as a plan or apply is one person waiting.
 * Idempotency values: content and session for a real write, content for personas and tags, fresh for a dry run.
 */
export function createWriteClient(config: ApiConfig, options: ApiClientOptions = {}): WriteClient {
  const transport = openTransport(config, { ...options, retryRateLimited: options.retryRateLimited ?? true });
  const encoding = { params: config.params, arrayFormat: config.arrayFormat };
  // One apply: a retry within it replays the API's first answer, a later apply writes again (idempotency-key.ts).
  const session = randomUUID();

  /** `keyOf`: the idempotency value is fresh for a dry run, of the apply and the content for a write a later plan can compare, of the content alone otherwise. */
  function send<T>(
    method: 'POST' | 'PATCH',
    path: string,
    body: unknown,
    schema: z.ZodType<T>,
    keyOf: 'dry-run' | 'apply' | 'content' = 'apply',
  ): Promise<T> {
    const endpoint = `${method} ${path}`;
    const dryRun = keyOf === 'dry-run';
    const key = dryRun
      ? freshIdempotencyKey()
      : keyOf === 'content'
        ? stableIdempotencyKey(method, path, body)
        : contentIdempotencyKey(session, method, path, body);
    return transport.send(
      { method, path, endpoint, body, idempotency: { header: config.idempotencyHeader, value: key } },
      (answer) => {
        // A single-item write the API answered 2xx with no body (204): done, with nothing to read back.
        if (answer === undefined && schema.safeParse(undefined).success) return undefined as T;
        const result = schema.safeParse(answer);
        if (result.success) return result.data;
        // Answered 2xx in another shape: the API may have written, and the message must say so.
        throw new WriteAnswerError(
          `${endpoint}: the answer does not match the spec: ${describeZodIssues(result.error).slice(0, 5).join('; ')}. ` +
            `As for writing, ${writtenPerInfo(answer, dryRun)}. bvsync sent nothing more; bvsync plan shows what the brand now holds`,
          { endpoint },
        );
      },
    );
  }

  async function bulk<T>(
    path: string,
    body: Record<string, unknown>,
    item: z.ZodType<T>,
    dryRun: boolean,
  ): Promise<w.BulkAnswer<T>> {
    if (!dryRun) {
      const answer = await send('POST', path, body, w.bulkEnvelopeSchema(item));
      return {
        data: answer.data as T[],
        dryRun: answer.info.dry_run ?? false,
        written: answer.info.written ?? 0,
        rejected: answer.rejected ?? [],
      };
    }
    // A dry run's items are not read: plan needs only what was rejected, and an item not created has no id to give.
    const answer = await send('POST', path, { ...body, dry_run: true }, w.dryRunEnvelopeSchema, 'dry-run');
    const written = answer.info.written ?? 0;
    // A check that wrote: `plan` must not go on, nor say "nothing written". The spec names the flag and not how an API
    // that reads it elsewhere answers, so its own answer is what tells.
    if (answer.info.dry_run === false || written > 0) {
      throw new WriteAnswerError(
        `POST ${path}: sent with dry_run true, the API answered dry_run ${String(answer.info.dry_run ?? 'absent')} and written ${written}: ` +
          'it did not check but wrote. bvsync stopped here and sent nothing more; run bvsync plan again to see what the API now holds, ' +
          'and find how this API takes a dry run before planning again',
        { endpoint: `POST ${path}` },
      );
    }
    const rejected = answer.rejected ?? [];
    if ((answer.info.rejected ?? 0) > rejected.length) {
      throw new WriteAnswerError(
        `POST ${path}: the dry run's info.rejected is ${answer.info.rejected} but rejected[] lists ${rejected.length}, so bvsync cannot tell which items the API would reject. ` +
          `As for writing, ${writtenPerInfo(answer, true)}`,
        { endpoint: `POST ${path}` },
      );
    }
    return { data: [], dryRun: true, written, rejected };
  }

  function within(count: number, most: number, what: string, least = 1): void {
    if (count < least || count > most)
      throw new RangeError(`${what}: ${count} in one request; the spec allows ${least} to ${most}`);
  }

  function get<T>(path: string, query: QueryParams, schema: z.ZodType<T>): Promise<T> {
    const endpoint = `GET ${path}`;
    return transport.send({ method: 'GET', path: withQuery(path, buildQuery(query, encoding)), endpoint }, (answer) => {
      const result = schema.safeParse(answer);
      if (result.success) return result.data;
      throw new WriteAnswerError(
        `${endpoint}: the answer does not match the spec: ${describeZodIssues(result.error).slice(0, 5).join('; ')}`,
        { endpoint },
      );
    });
  }

  return {
    async trackUrls(brandId, urls, groupId, { dryRun }) {
      within(urls.length, TRACK_URLS_PER_REQUEST, 'tracked URLs');
      return bulk(
        brandPath(brandId, 'tracked-urls'),
        { urls, ...(groupId === undefined ? {} : { group_id: groupId }) },
        w.writtenTrackedUrlSchema,
        dryRun,
      );
    },
    updateTrackedUrl: (brandId, trackedUrlId, change) =>
      send('PATCH', brandPath(brandId, 'tracked-urls', trackedUrlId), change, w.writtenTrackedUrlSchema.optional()),
    async createTopics(brandId, topics, { dryRun }) {
      within(topics.length, TOPICS_PER_REQUEST, 'topics');
      for (const topic of topics)
        within(topic.scenarios.length, SCENARIOS_PER_TOPIC, `scenarios of topic "${topic.name}"`, 0);
      return bulk(brandPath(brandId, 'topics'), { topics }, w.writtenTopicSchema, dryRun);
    },
    restoreTopic: (brandId, topicId) =>
      send('POST', brandPath(brandId, 'topics', topicId, 'restore'), undefined, w.writtenTopicSchema.optional()),
    async createCompetitors(brandId, competitors, { dryRun }) {
      within(competitors.length, COMPETITORS_PER_REQUEST, 'competitors');
      return bulk(brandPath(brandId, 'competitors'), { competitors }, w.writtenCompetitorSchema, dryRun);
    },
    updatePersona: (brandId, personaId, change) =>
      send('PATCH', brandPath(brandId, 'personas', personaId), change, w.writtenPersonaSchema.optional(), 'content'),
    updateTag: (brandId, tagId, change) =>
      send('PATCH', brandPath(brandId, 'tags', tagId), change, w.writtenTagSchema.optional(), 'content'),

    async trackedPages(brandId) {
      const path = brandPath(brandId, 'tracked-urls');
      const pages: TrackedPage[] = [];
      const stream = paginate({
        schema: w.writtenTrackedUrlSchema,
        pageSize: cappedPageSize(undefined, config.pageSize),
        firstPage: config.firstPage,
        describe: (page) => `GET ${path} page ${page}`,
        fetchPage: (page, pageSize) => get(path, { page, page_size: pageSize }, pagedEnvelopeSchema),
      });
      for await (const page of stream) {
        // A record that cannot be read could be a page the file declares: a plan without it would be wrong.
        if (page.rejects.length)
          throw new WriteAnswerError(
            `${page.requestInfo.source}: unreadable record: ${page.rejects[0]!.issues.join('; ')}`,
            { endpoint: `GET ${path}` },
          );
        for (const r of page.records)
          pages.push({ id: r.id, url: r.url, title: r.title ?? undefined, groupId: r.group?.id ?? undefined });
      }
      return pages;
    },

    async competitors(brandId) {
      const path = brandPath(brandId, 'competitors');
      const answer = await get(path, { confirmed: false }, w.competitorsAnswerSchema);
      return answer.data.map((raw) => {
        const result = w.writtenCompetitorSchema.safeParse(raw);
        if (!result.success)
          throw new WriteAnswerError(
            `GET ${path}: unreadable competitor: ${describeZodIssues(result.error).join('; ')}`,
            { endpoint: `GET ${path}` },
          );
        const { id, name, website, is_actual: actual } = result.data;
        return { id, name, website: website ?? undefined, tracked: actual === true };
      });
    },

    close: () => transport.close(),
  };
}
