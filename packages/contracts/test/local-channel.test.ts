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
    const request = { requester: 'test' };
    await expect(channel.requestSnapshot(request)).rejects.toBeInstanceOf(SnapshotError);
    const asked: unknown[] = [];
    const answer = [new TextEncoder().encode('{"format":2,"index":0,"revision":0,"policies":[],"last":true}')];
    const withdraw = channel.answerSnapshots((received) => {
      asked.push(received);
      return Promise.resolve(answer);
    });
    await expect(channel.requestSnapshot(request)).resolves.toBe(answer);
    expect(asked).toEqual([request]);
    withdraw();
    await expect(channel.requestSnapshot(request)).rejects.toThrow('nobody answers snapshot requests');
  });
});
