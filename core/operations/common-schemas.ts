import { z } from 'zod'

/** Marks mock bodies in output schemas (present only on sandbox answers). */
export const mockFields = {
  mock: z.literal(true).optional().describe('Present and true only on sandbox (mock) answers'),
  mock_note: z.string().optional().describe('Why this answer is mock data'),
}
