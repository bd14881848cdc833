// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, describe, expect, it } from 'vitest'
import { PathsChart } from './PathsChart'

afterEach(cleanup)

const results = [
  { source: '1_/home', target: '2_/docs', value: 1, average_conversion_time: 30_000 },
  { source: '2_/pricing', target: '3_order placed', value: 1, average_conversion_time: 3_600_000 },
  { source: '1_/home', target: '2_/pricing', value: 2, average_conversion_time: 425_000 },
]

describe('a paths insight', () => {
  it('draws a bar per item with its count and a band per link, read out on hover and on focus', async () => {
    const { container } = render(<PathsChart results={results} title="Journeys" />)
    expect([...container.querySelectorAll('text')].map((t) => t.textContent)).toEqual([
      '1. /home/home 3',
      '2. /pricing/pricing 2',
      '2. /docs/docs 1',
      '3. order placedorder placed 1',
    ])
    const links = screen.getAllByRole('img')
    expect(links.map((l) => l.getAttribute('aria-label'))).toEqual([
      '1. /home → 2. /docs: 1 person',
      '2. /pricing → 3. order placed: 1 person',
      '1. /home → 2. /pricing: 2 persons',
    ])
    fireEvent.mouseEnter(links[2]!)
    expect(screen.getByText('1. /home → 2. /pricing: 2 persons')).toBeTruthy()
    fireEvent.mouseLeave(links[2]!)
    // Past the table switch, the first band.
    const user = userEvent.setup()
    await user.tab()
    await user.tab()
    expect(document.activeElement).toBe(links[0])
    expect(screen.getByText('1. /home → 2. /docs: 1 person')).toBeTruthy()
  })

  it('lists the same links as a table, most persons first, with the average time between the steps', async () => {
    render(<PathsChart results={results} title="Journeys" />)
    await userEvent.setup().click(screen.getByRole('button', { name: 'Show as table' }))
    const rows = within(screen.getByRole('table', { name: 'Journeys' }))
      .getAllByRole('row')
      .map((row) => [...row.querySelectorAll('th, td')].map((cell) => cell.textContent))
    expect(rows).toEqual([
      ['From', 'To', 'Persons', 'Average time'],
      ['1. /home', '2. /pricing', '2', '7m 5s'],
      ['1. /home', '2. /docs', '1', '30s'],
      ['2. /pricing', '3. order placed', '1', '1h 0m'],
    ])
  })

  it('cuts a long name to its end, where URLs of one site differ, the whole name in its title', () => {
    const long = 'https://shop.example.com/products/garden/pricing'
    const { container } = render(
      <PathsChart results={[{ source: '1_/home', target: `2_${long}`, value: 1, average_conversion_time: 0 }]} title="Journeys" />,
    )
    const label = [...container.querySelectorAll('text')].find((t) => t.textContent?.includes('garden'))!
    expect(label.querySelector('title')!.textContent).toBe(`2. ${long}`)
    // Its title, then what it shows: the name's last 27 characters.
    expect(label.textContent).toBe(`2. ${long}…com/products/garden/pricing 1`)
  })

  it('says so when no one took a path', () => {
    render(<PathsChart results={[]} title="Journeys" />)
    expect(screen.getByText('No paths in this date range.')).toBeTruthy()
  })
})
