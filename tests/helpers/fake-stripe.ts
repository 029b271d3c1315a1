// The local Stripe for e2e tests; it lives with the control plane's test helpers, which use it too.
export { startFakeStripe, type FakeStripe } from '../../control-plane/src/testing/fake-stripe';
