export { testConfig, removeTestDirs } from './config'
export { createTestAccount, type TestAccount } from './accounts'
export { waitFor } from './waitFor'
export { databaseUrlForTests } from './services'
