"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.FakeTransport = void 0;
exports.deferred = deferred;
function deferred() {
    let resolve;
    let reject;
    const promise = new Promise((res, rej) => {
        resolve = res;
        reject = rej;
    });
    return { promise, resolve, reject };
}
/** A transport driven by the test: it emits changes and decides how each snapshot request is answered. */
class FakeTransport {
    /** What happened, in order (`subscribe`, `snapshot`). */
    calls = [];
    /** Answers for the next snapshot requests; when empty, `state` is answered. */
    answers = [];
    /** performance.now() of every snapshot request. */
    requestTimes = [];
    state = { revision: 0, policies: [] };
    connected = true;
    closed = false;
    listener;
    reconnectListeners = [];
    get snapshotRequests() {
        return this.calls.filter((c) => c === 'snapshot').length;
    }
    async subscribeChanges(onChange) {
        this.calls.push('subscribe');
        this.listener = onChange;
    }
    fetchSnapshot() {
        this.calls.push('snapshot');
        this.requestTimes.push(performance.now());
        const answer = this.answers.shift() ?? structuredClone(this.state);
        if (answer instanceof Error)
            return Promise.reject(answer);
        if ('promise' in answer)
            return answer.promise;
        return Promise.resolve(answer);
    }
    onReconnect(listener) {
        this.reconnectListeners.push(listener);
    }
    emit(change, receivedAt = Date.now()) {
        if (!this.listener)
            throw new Error('nobody subscribed');
        this.listener(change, receivedAt);
    }
    reconnect() {
        for (const listener of this.reconnectListeners)
            listener();
    }
    async close() {
        this.closed = true;
    }
}
exports.FakeTransport = FakeTransport;
//# sourceMappingURL=fake-transport.js.map