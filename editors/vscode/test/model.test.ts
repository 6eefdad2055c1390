import { describe, expect, it } from 'vitest';
import { describeModel } from '../src/model';

describe('describeModel', () => {
  it('names the model, its file and why it serves', () => {
    const stats = { documents: 1, model: { name: 'wafer-tiny-code', architecture: 'qwen2', path: '/x/models/m.gguf', source: 'bundled' } };
    expect(describeModel(stats)).toBe('wafer-tiny-code (/x/models/m.gguf, the bundled model)');
    expect(describeModel({ model: { name: 'q', path: '/c/q.gguf', source: 'cache' } })).toBe(
      'q (/c/q.gguf, the most capable model in the download cache)',
    );
  });

  it('names the model that drafts for it', () => {
    const model = { name: 'q', path: '/c/q.gguf', source: 'cache', draft: 'qwen2.5-coder-0.5b, 494032768 parameters, weights read as Q5_0' };
    expect(describeModel({ model })).toBe('q (/c/q.gguf, the most capable model in the download cache), drafted by qwen2.5-coder-0.5b');
    expect(describeModel({ model: { ...model, draft: '' } })).toBe('q (/c/q.gguf, the most capable model in the download cache)');
  });

  it('names a model without a file by name alone', () => {
    expect(describeModel({ model: { name: 'scripted', architecture: 'fake' } })).toBe('scripted');
  });

  it('says nothing while no model is loaded or for an answer it does not know', () => {
    expect(describeModel({ model: null })).toBeUndefined();
    expect(describeModel('error: not running')).toBeUndefined();
    expect(describeModel(undefined)).toBeUndefined();
  });
});
