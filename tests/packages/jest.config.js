// The PIP and PXP stubs of these tests listen on 127.0.0.1, which the pdp's egress policy refuses by default:
// allowed here explicitly (PDP_CALL_ALLOW; pdp processes started by the tests inherit it).
process.env.PDP_CALL_ALLOW ??= '127.0.0.1';
module.exports = require('../../jest.base.js')(__dirname);
