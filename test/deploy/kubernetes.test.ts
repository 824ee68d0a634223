import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { workerCommand } from '../../src/cli/run/worker.js';

/**
 * deploy/kubernetes/, with no cluster: every manifest validates against the Kubernetes schemas (kubernetes-models),
 * the kustomization lists every file, and the manifests agree with bvsync: the probes' paths and port, the fetch-only
 * flag, the secrets read from files of a Secret, the writer's volume under BVSYNC_DB, the sizes of "Sizing a container".
 */

const DIR = join(import.meta.dirname, '..', '..', 'deploy', 'kubernetes');
type Manifest = {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec?: any;
  data?: Record<string, string>;
};

const files = readdirSync(DIR)
  .filter((name) => /\.ya?ml$/.test(name))
  .sort();
const manifests = new Map<string, Manifest[]>(
  files.map((name) => [
    name,
    parseAllDocuments(readFileSync(join(DIR, name), 'utf8')).map((document) => document.toJS() as Manifest),
  ]),
);
const all = [...manifests.entries()]
  .filter(([name]) => name !== 'kustomization.yaml')
  .flatMap(([, documents]) => documents);
const byName = (kind: string, name: string): Manifest => all.find((m) => m.kind === kind && m.metadata.name === name)!;
const env = byName('ConfigMap', 'bvsync-env').data!;
const workloads = all.filter((m) => ['StatefulSet', 'Deployment'].includes(m.kind));

/** The kubernetes-models class of a manifest's kind: `apps/v1` StatefulSet from `kubernetes-models/apps/v1`. */
async function validate(manifest: Manifest): Promise<void> {
  const models = (await import(`kubernetes-models/${manifest.apiVersion}`)) as Record<
    string,
    new (
      value: unknown,
    ) => { validate(): void }
  >;
  const Model = models[manifest.kind];
  if (!Model) throw new Error(`kubernetes-models has no ${manifest.apiVersion} ${manifest.kind}`);
  new Model(manifest).validate();
}

describe('deploy/kubernetes', () => {
  it('the kustomization lists every manifest of the folder, and nothing else', () => {
    const [kustomization] = manifests.get('kustomization.yaml')!;
    expect((kustomization as unknown as { resources: string[] }).resources.sort()).toEqual(
      files.filter((name) => name !== 'kustomization.yaml'),
    );
  });

  it('every manifest validates against the Kubernetes schemas', async () => {
    expect(all.map((m) => m.kind).sort()).toEqual(['ConfigMap', 'Deployment', 'Deployment', 'Service', 'StatefulSet']);
    for (const manifest of all) await validate(manifest);
  });

  it('a manifest the schemas refuse is refused: the validation can fail', async () => {
    const writer = structuredClone(byName('StatefulSet', 'bvsync-writer'));
    writer.spec.replicas = 'one';
    await expect(validate(writer)).rejects.toThrow(/replicas must be integer/);
  });

  it('each workload selects its own pods', () => {
    for (const workload of workloads)
      expect(workload.spec.template.metadata.labels).toMatchObject(workload.spec.selector.matchLabels);
    const service = byName('Service', 'bvsync-writer');
    expect(byName('StatefulSet', 'bvsync-writer').spec.template.metadata.labels).toMatchObject(service.spec.selector);
  });

  it('the writer is one StatefulSet replica whose volume holds BVSYNC_DB; fetch-only workers have no volume', () => {
    const writer = byName('StatefulSet', 'bvsync-writer').spec;
    expect(writer.replicas).toBe(1);
    const [claim] = writer.volumeClaimTemplates;
    const mount = writer.template.spec.containers[0].volumeMounts.find(
      (m: { name: string }) => m.name === claim.metadata.name,
    );
    expect(env.BVSYNC_DB!.startsWith(`${mount.mountPath}/`)).toBe(true);
    const fetcher = byName('Deployment', 'bvsync-fetcher').spec.template.spec;
    expect(fetcher.containers[0].args).toEqual(['worker', '--fetch-only', '--metrics-port', '9464']);
    expect(workerCommand().options.map((option) => option.long)).toContain('--fetch-only');
    expect(fetcher.containers[0].volumeMounts.map((m: { mountPath: string }) => m.mountPath)).not.toContain(
      mount.mountPath,
    );
  });

  it('the workers are probed on /healthz and /readyz of the port their --metrics-port opens', () => {
    for (const name of ['bvsync-writer', 'bvsync-fetcher']) {
      const container = workloads.find((m) => m.metadata.name === name)!.spec.template.spec.containers[0];
      const port = container.args[container.args.indexOf('--metrics-port') + 1];
      expect(container.ports).toEqual([{ name: 'metrics', containerPort: Number(port) }]);
      expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
      expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'metrics' });
      expect(container.startupProbe.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
      // Each readiness check waits at most 2 s (src/engine/jobs/readiness.ts), two of them in a row.
      expect(container.readinessProbe.timeoutSeconds).toBeGreaterThan(4);
    }
  });

  it('secrets come by reference, read from files of the Secret, never as values; the pods run as the image user', () => {
    expect(Object.keys(env).filter((name) => /KEY$|REDIS_URL$|PASSWORD/.test(name))).toEqual([]);
    for (const workload of workloads) {
      const pod = workload.spec.template.spec;
      const secrets = pod.volumes.find((volume: { secret?: unknown }) => volume.secret);
      expect(secrets.secret.secretName).toBe('bvsync-secrets');
      // 0440 with fsGroup: bvsync's own group, so src/config/secret-file.ts has no warning.
      expect(secrets.secret.defaultMode).toBe(0o440);
      expect(pod.securityContext).toMatchObject({
        runAsNonRoot: true,
        runAsUser: 1000,
        runAsGroup: 1000,
        fsGroup: 1000,
      });
      const mount = pod.containers[0].volumeMounts.find((m: { name: string }) => m.name === secrets.name);
      expect(mount.readOnly).toBe(true);
      expect(env.BVSYNC_API_KEY_FILE).toBe(`${mount.mountPath}/api-key`);
      expect(env.REDIS_URL_FILE).toBe(`${mount.mountPath}/redis-url`);
      expect(pod.containers[0].envFrom).toEqual([{ configMapRef: { name: 'bvsync-env' } }]);
      expect(JSON.stringify(pod)).not.toMatch(/"value":/);
    }
  });

  it('requests and limits follow docs/operations.md, "Sizing a container"', () => {
    const docs = readFileSync(join(DIR, '..', '..', 'docs', 'operations.md'), 'utf8');
    // Compared with the lines joined, so rewrapping the page does not matter.
    expect(docs.replace(/\s+/g, ' ')).toContain('**512 MB** with the defaults. Give it two cores');
    const writer = byName('StatefulSet', 'bvsync-writer').spec.template.spec.containers[0].resources;
    expect(writer).toEqual({ requests: { cpu: '2', memory: '512Mi' }, limits: { cpu: '2', memory: '512Mi' } });
    const fetcher = byName('Deployment', 'bvsync-fetcher').spec.template.spec.containers[0].resources;
    // node's 192 MB heap and ~100 MB: a fetch-only worker never opens DuckDB.
    expect(fetcher.limits.memory).toBe('320Mi');
  });
});
