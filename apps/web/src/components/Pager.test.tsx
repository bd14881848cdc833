// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { Pager } from './Pager'

afterEach(cleanup)

function pager(props: { offset: number; shown: number; count?: number; more?: boolean }) {
  const moves: number[] = []
  render(<Pager what="people" limit={100} onOffset={(offset) => moves.push(offset)} {...props} />)
  return moves
}

describe('Pager', () => {
  it('shows nothing while the whole list fits on the first page', () => {
    pager({ offset: 0, shown: 42, count: 42 })
    expect(screen.queryByRole('navigation')).toBeNull()
  })

  it('says which rows the page holds, and goes on from the first page but not back', () => {
    const moves = pager({ offset: 0, shown: 100, count: 345 })
    expect(screen.getByRole('navigation', { name: 'Pages of people' }).textContent).toContain('1–100 of 345')
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Previous 100' }).disabled).toBe(true)
    fireEvent.click(screen.getByRole('button', { name: 'Next 100' }))
    expect(moves).toEqual([100])
  })

  it('goes back from the last page but not on', () => {
    const moves = pager({ offset: 300, shown: 45, count: 345 })
    expect(screen.getByRole('status').textContent).toBe('301–345 of 345')
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Next 100' }).disabled).toBe(true)
    fireEvent.click(screen.getByRole('button', { name: 'Previous 100' }))
    expect(moves).toEqual([200])
  })

  it('leads back to the last page from one past the end, as a URL may ask for', () => {
    const moves = pager({ offset: 1000, shown: 0, count: 345 })
    expect(screen.getByRole('status').textContent).toBe('None of 345 here')
    fireEvent.click(screen.getByRole('button', { name: 'Previous 100' }))
    expect(moves).toEqual([300])
  })

  it('pages a list of unknown length by whether more rows follow', () => {
    const moves = pager({ offset: 100, shown: 100, more: true })
    expect(screen.getByRole('status').textContent).toBe('101–200')
    fireEvent.click(screen.getByRole('button', { name: 'Next 100' }))
    fireEvent.click(screen.getByRole('button', { name: 'Previous 100' }))
    expect(moves).toEqual([200, 0])
    cleanup()
    pager({ offset: 200, shown: 3, more: false })
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Next 100' }).disabled).toBe(true)
  })
})
