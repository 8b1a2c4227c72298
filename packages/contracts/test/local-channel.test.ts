import { LocalPolicyChannel, SnapshotError } from '../src';

describe('LocalPolicyChannel', () => {
  it('hands each change to every subscriber in publish order, past a subscriber that throws', () => {
    const channel = new LocalPolicyChannel();
    const heard: string[] = [];
    channel.subscribeChanges(() => {
      throw new Error('a broken receiver');
    });
    const stop = channel.subscribeChanges((data) => heard.push(new TextDecoder().decode(data)));
    channel.publishChange(new TextEncoder().encode('one'));
    channel.publishChange(new TextEncoder().encode('two'));
    stop();
    channel.publishChange(new TextEncoder().encode('three'));
    expect(heard).toEqual(['one', 'two']);
  });

  it('answers snapshot requests while a responder is there', async () => {
    const channel = new LocalPolicyChannel();
    await expect(channel.requestSnapshot()).rejects.toBeInstanceOf(SnapshotError);
    const withdraw = channel.answerSnapshots(() => Promise.resolve('{"revision":0,"policies":[]}'));
    await expect(channel.requestSnapshot()).resolves.toBe('{"revision":0,"policies":[]}');
    withdraw();
    await expect(channel.requestSnapshot()).rejects.toThrow('nobody answers snapshot requests');
  });
});
