export { flagHash } from './hash'
export { matchProperty } from './properties'
export { evaluateFlag, variantFor } from './evaluate'
export type * from './types'
