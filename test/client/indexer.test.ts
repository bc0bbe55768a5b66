import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../src/machinery/meta.js';
import { Indexer, NAMESPACE_INDEX } from '../../src/client/indexer.js';
import { Lister, labelsMatch } from '../../src/client/lister.js';
import { DeletedFinalStateUnknown, metaNamespaceKeyFunc, splitMetaNamespaceKey } from '../../src/client/store.js';

const obj = (namespace: string | undefined, name: string, labels: Record<string, string> = {}): KubeObject => ({
  metadata: namespace === undefined ? { name, labels } : { namespace, name, labels },
});
const names = (objs: KubeObject[]): string[] => objs.map((o) => o.metadata.name!).sort();

describe('keys', () => {
  it('namespace/name for namespaced objects, name for cluster-scoped ones, the key for tombstones', () => {
    assert.equal(metaNamespaceKeyFunc(obj('ns1', 'a')), 'ns1/a');
    assert.equal(metaNamespaceKeyFunc(obj(undefined, 'node1')), 'node1');
    assert.equal(metaNamespaceKeyFunc(new DeletedFinalStateUnknown<KubeObject>('ns1/x', undefined)), 'ns1/x');
    assert.deepEqual(splitMetaNamespaceKey('ns1/a'), { namespace: 'ns1', name: 'a' });
    assert.deepEqual(splitMetaNamespaceKey('node1'), { namespace: '', name: 'node1' });
    assert.throws(() => splitMetaNamespaceKey('a/b/c'), /unexpected key format/);
  });
});

describe('Indexer', () => {
  const byApp = (o: KubeObject): string[] => (o.metadata.labels?.app ? [o.metadata.labels.app] : []);

  it('without the namespace index (namespaceIndex: false) keeps objects by key and the other indices only', () => {
    const idx = new Indexer(undefined, { app: byApp }, { namespaceIndex: false });
    idx.add(obj('ns1', 'a', { app: 'web' }));
    idx.add(obj('ns2', 'b', { app: 'web' }));
    assert.equal(idx.getByKey('ns1/a')?.metadata.name, 'a');
    assert.deepEqual(names(idx.byIndex('app', 'web')), ['a', 'b']);
    assert.deepEqual(Object.keys(idx.getIndexers()), ['app']);
    assert.throws(() => idx.byIndex(NAMESPACE_INDEX, 'ns1'), /Index with name namespace does not exist/);
    idx.delete(obj('ns1', 'a'));
    assert.deepEqual(idx.listKeys(), ['ns2/b']);
  });

  it('indexes by namespace out of the box and by any named index', () => {
    const idx = new Indexer(undefined, { app: byApp });
    idx.add(obj('ns1', 'a', { app: 'web' }));
    idx.add(obj('ns1', 'b', { app: 'db' }));
    idx.add(obj('ns2', 'c', { app: 'web' }));
    idx.add(obj(undefined, 'cluster'));
    assert.deepEqual(names(idx.byIndex(NAMESPACE_INDEX, 'ns1')), ['a', 'b']);
    assert.deepEqual(names(idx.byIndex('app', 'web')), ['a', 'c']);
    assert.deepEqual(names(idx.index('app', obj('x', 'y', { app: 'db' }))), ['b']);
    assert.deepEqual(idx.listIndexFuncValues(NAMESPACE_INDEX).sort(), ['ns1', 'ns2']);
    assert.throws(() => idx.byIndex('nope', 'x'), /Index with name nope does not exist/);
  });

  it('moves an object between buckets on update and drops empty buckets on delete', () => {
    const idx = new Indexer(undefined, { app: byApp });
    idx.add(obj('ns1', 'a', { app: 'web' }));
    idx.update(obj('ns1', 'a', { app: 'db' }));
    assert.deepEqual(idx.byIndex('app', 'web'), []);
    assert.deepEqual(idx.indexKeys('app', 'db'), ['ns1/a']);
    idx.delete(new DeletedFinalStateUnknown<KubeObject>('ns1/a', undefined));
    assert.deepEqual(idx.listIndexFuncValues('app'), []);
    assert.deepEqual(idx.listIndexFuncValues(NAMESPACE_INDEX), []);
    assert.equal(idx.getByKey('ns1/a'), undefined);
  });

  it('replace rebuilds content and indices; indexers added later index existing objects', () => {
    const idx = new Indexer();
    idx.add(obj('ns1', 'old', { app: 'web' }));
    idx.replace([obj('ns2', 'n1', { app: 'web' }), obj('ns2', 'n2')], '10');
    assert.deepEqual(idx.listKeys().sort(), ['ns2/n1', 'ns2/n2']);
    assert.deepEqual(idx.byIndex(NAMESPACE_INDEX, 'ns1'), []);
    idx.addIndexers({ app: byApp });
    assert.deepEqual(names(idx.byIndex('app', 'web')), ['n1']);
    assert.throws(() => idx.addIndexers({ app: byApp }), /indexer conflict/);
  });
});

describe('Lister', () => {
  it('lists all or one namespace, with an optional filter, and gets by name', () => {
    const idx = new Indexer();
    idx.add(obj('ns1', 'a', { tier: 'front' }));
    idx.add(obj('ns1', 'b'));
    idx.add(obj('ns2', 'a'));
    idx.add(obj(undefined, 'n'));
    const lister = new Lister(idx);
    assert.equal(lister.list().length, 4);
    assert.deepEqual(names(lister.namespace('ns1').list()), ['a', 'b']);
    assert.deepEqual(names(lister.namespace('ns1').list(labelsMatch({ tier: 'front' }))), ['a']);
    assert.equal(lister.namespace('ns2').get('a')?.metadata.namespace, 'ns2');
    assert.equal(lister.namespace('ns2').get('b'), undefined);
    assert.equal(lister.get('n')?.metadata.name, 'n');
  });
});
