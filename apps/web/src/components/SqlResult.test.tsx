// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider, useQuery } from '@tanstack/react-query'
import { cleanup, render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ApiError } from '../api'
import { cellText, errorPosition, hogqlQuery, sqlAnswerOf } from '../sql'
import { SqlResult } from './SqlResult'

afterEach(cleanup)

/** The result under a real query whose answer (or refusal) is `answer`. */
function Harness({ query, answer, onShowError }: { query: string | undefined; answer: () => Promise<unknown>; onShowError: () => void }) {
  const result = useQuery({ queryKey: ['sql', query], queryFn: answer, retry: false })
  return <SqlResult query={query} answer={result} onShowError={onShowError} />
}

function show(query: string | undefined, answer: () => Promise<unknown>, onShowError = () => {}) {
  render(
    <QueryClientProvider client={new QueryClient()}>
      <Harness query={query} answer={answer} onShowError={onShowError} />
    </QueryClientProvider>,
  )
}

const refusal = (detail: string) => new ApiError(400, { type: 'validation_error', code: 'invalid_input', detail, attr: null })

describe("the SQL page's query and its errors", () => {
  it("sends the text as PostHog's HogQLQuery", () => {
    expect(hogqlQuery('select 1')).toEqual({ kind: 'HogQLQuery', query: 'select 1' })
  })

  it('finds the place a syntax error names, as an offset into the text', () => {
    const text = 'select event,\nfrom events'
    expect(errorPosition('SyntaxError in the query (line 2, column 1): no viable alternative', text)).toEqual({
      line: 2,
      column: 1,
      offset: 14,
    })
    expect(errorPosition('SyntaxError in the query (line 1, column 8): x', text)).toEqual({ line: 1, column: 8, offset: 7 })
    // A column past the end of its line is the line's end; a line past the text names no place.
    expect(errorPosition('(line 1, column 99)', text)?.offset).toBe(13)
    expect(errorPosition('(line 3, column 1)', text)).toBeUndefined()
    expect(errorPosition('Only SELECT queries can be run.', text)).toBeUndefined()
  })

  it('writes cells as text: strings as they are, the rest as JSON', () => {
    expect([cellText('$pageview'), cellText(3), cellText(null), cellText([1, 'a']), cellText(true)]).toEqual([
      '$pageview',
      '3',
      'null',
      '[1,"a"]',
      'true',
    ])
    expect(sqlAnswerOf({ columns: ['a'], results: [[1], 'x'], hasMore: true })).toEqual({ columns: ['a'], results: [[1]], hasMore: true })
    expect(sqlAnswerOf(undefined)).toEqual({ columns: [], results: [], hasMore: false })
  })
})

describe("the SQL page's result", () => {
  it('says what to do before any query', () => {
    show(undefined, () => Promise.resolve({}))
    expect(screen.getByText(/Write a query and run it/)).toBeTruthy()
  })

  it('draws the rows under the names of the columns the answer gives', async () => {
    show('select event, count() from events group by event', () =>
      Promise.resolve({
        columns: ['event', 'count()'],
        results: [
          ['$pageview', 3],
          ['signup', 1],
        ],
        hasMore: false,
      }),
    )
    const table = await screen.findByRole('table', { name: 'Query result' })
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((th) => th.textContent),
    ).toEqual(['event', 'count()'])
    expect(
      within(table)
        .getAllByRole('row')
        .slice(1)
        .map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
    ).toEqual([
      ['$pageview', '3'],
      ['signup', '1'],
    ])
    expect(screen.getByRole('heading', { name: /Result \(2 rows\)/ })).toBeTruthy()
  })

  it('says when the answer has no rows, and when it has more than it shows', async () => {
    show('select 1 where 0', () => Promise.resolve({ columns: ['1'], results: [], hasMore: false }))
    expect(await screen.findByText('The query answered no rows.')).toBeTruthy()
    cleanup()
    show('select number from numbers(10)', () => Promise.resolve({ columns: ['n'], results: [[1]], hasMore: true }))
    expect(await screen.findByText(/more rows than these/)).toBeTruthy()
  })

  it("shows a refusal in the service's words, with a way to the place it names", async () => {
    const onShowError = vi.fn()
    show(
      'select event,\nfrom events',
      () => Promise.reject(refusal('SyntaxError in the query (line 2, column 1): no viable alternative')),
      onShowError,
    )
    const alert = await screen.findByRole('alert')
    expect(within(alert).getByText('SyntaxError in the query (line 2, column 1): no viable alternative')).toBeTruthy()
    await userEvent.setup().click(within(alert).getByRole('button', { name: 'Go to line 2, column 1' }))
    expect(onShowError).toHaveBeenCalledOnce()
  })

  it('offers no place when the refusal names none', async () => {
    show('insert into events', () => Promise.reject(refusal('Only SELECT queries can be run.')))
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toBe('Only SELECT queries can be run.')
    expect(within(alert).queryByRole('button')).toBeNull()
  })
})
