// The compose suite drives containers: minutes, not the 30 s of the other suites (each step sets its own limit).
module.exports = { ...require('../../jest.base.js')(__dirname), testTimeout: 600_000 };
