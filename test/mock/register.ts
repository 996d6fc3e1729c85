/**
 * This package's four generated mocks, imported for their side effect: each registers itself, so `startMock("<id>")`
 * finds it.
 */
import "../../generated/contentsnare/mock.js";
import "../../generated/marketo/mock.js";
import "../../generated/trello/mock.js";
import "../../generated/worldnews/mock.js";
