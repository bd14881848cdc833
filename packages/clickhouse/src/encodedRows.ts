// What an insert of rows already encoded is made of, whichever connection carries it: the
// connection (connect.ts) and the embedded engine's file inserts (embeddedInsert.ts) both speak it.

/** The formats in which rows reach ClickHouse already encoded. */
export type EncodedFormat = 'JSONEachRow' | 'JSONCompactEachRow'

/** ClickHouse settings of one insert. */
export type InsertSettings = Record<string, number | string>
