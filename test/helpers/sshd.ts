// The sshd fixture lives with the benches (plain JS), which start the same daemons.
export {sshdMissing, sshdPath, startSshd, type SshdFixture, type TestHost} from '../../bench/sshd.js'
