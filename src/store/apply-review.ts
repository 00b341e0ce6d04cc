import {editRow, type RowEditOutcome} from './edit-row.js'
import {reviewRow, type ReviewDecision} from './review-row.js'

/**
 * Approve or reject an agent's held work (docs/review.md): the hand edit `reviewRow` describes, made through the
 * store. The one path of `mdplan review` and of the page of `mdplan serve`; a live run picks it up from the file.
 */
export function applyReview(file: string, agent: string, decision: ReviewDecision): Promise<RowEditOutcome> {
  return editRow(file, agent, (row) => reviewRow(row, decision))
}
