import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { tempDir } from '../support/tmp.js';

/**
 * The overlay of docs/operations.md, "Kubernetes, step by step", rendered over deploy/kubernetes by `kubectl kustomize`
 * (no cluster needed): every object lands in its namespace, with its image and the API's URL and brands.
 */

const REPO = join(import.meta.dirname, '..', '..');
const HAVE_KUBECTL = spawnSync('kubectl', ['version', '--client'], { stdio: 'ignore' }).status === 0;
const dir = tempDir('kubernetes-overlay');
afterAll(() => dir.remove());

/** The YAML block of the docs' Kubernetes steps: the overlay a reader copies. */
function overlayOfDocs(): string {
  const text = readFileSync(join(REPO, 'docs', 'operations.md'), 'utf8');
  const section = text.slice(text.indexOf('### Kubernetes, step by step'));
  const block = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('docs/operations.md, "Kubernetes, step by step", has no yaml block');
  return block;
}

describe.skipIf(!HAVE_KUBECTL)('the Kubernetes overlay of docs/operations.md (needs kubectl on PATH)', () => {
  it('renders over the base with its namespace, image, API URL and brands', () => {
    // Laid out as the docs say: the overlay's folder beside the clone, here a link named bvsync.
    symlinkSync(REPO, join(dir.path, 'bvsync'));
    mkdirSync(join(dir.path, 'bvsync-prod'));
    writeFileSync(join(dir.path, 'bvsync-prod', 'kustomization.yaml'), overlayOfDocs());
    const rendered = execFileSync('kubectl', ['kustomize', 'bvsync-prod'], { cwd: dir.path, encoding: 'utf8' });
    const objects = parseAllDocuments(rendered).map((document) => document.toJS());
    expect(objects.length).toBeGreaterThan(4);
    expect(objects.every((object) => object.metadata.namespace === 'bvsync')).toBe(true);
    const env = objects.find((object) => object.kind === 'ConfigMap')!.data;
    expect(env.BVSYNC_API_URL).toBe('https://brand-visibility.example.com');
    expect(env.BVSYNC_BRANDS).toBe('7,12');
    const images = objects
      .filter((object) => ['StatefulSet', 'Deployment'].includes(object.kind))
      .flatMap((object) => object.spec.template.spec.containers.map((container: { image: string }) => container.image));
    expect(new Set(images)).toEqual(new Set(['registry.example.com/data/bvsync:0.1.0']));
  });
});
