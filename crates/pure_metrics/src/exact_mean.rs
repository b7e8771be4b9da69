//! Python's `statistics.mean` for floats: the mean computed exactly and rounded once to the
//! nearest double (ties to even). ADK uses it to pool scores across runs; a plain
//! `sum / n` can land one ulp away, which flips a verdict when the mean sits on the threshold
//! (three runs scoring 0.7, 0.8, 0.9 against 0.8, say).

/// The correctly rounded mean of finite values; `None` for an empty slice.
pub fn exact_mean(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    debug_assert!(values.iter().all(|v| v.is_finite()), "scores are finite");
    // One run (or runs that agree) is the common case, and its mean is the value itself (+0.0
    // for -0.0, as below).
    if values.iter().all(|&value| value == values[0]) {
        return Some(values[0] + 0.0);
    }
    // Every finite double is m·2^e with an integer m < 2^53 and e >= -1074, so each value times
    // 2^1074 is an integer: sum those exactly, then divide by n and round.
    let (mut positive, mut negative) = (Natural::default(), Natural::default());
    for &value in values {
        let bits = value.to_bits();
        let biased_exponent = ((bits >> 52) & 0x7ff) as u32;
        let fraction = bits & ((1 << 52) - 1);
        let (mantissa, shift) = match biased_exponent {
            0 => (fraction, 0), // subnormal: fraction·2^-1074
            _ => (fraction | 1 << 52, biased_exponent - 1),
        };
        let total = if value < 0.0 { &mut negative } else { &mut positive };
        total.add_shifted(mantissa, shift);
    }
    let (sum, sign) = if positive >= negative {
        (positive.minus(&negative), 1.0)
    } else {
        (negative.minus(&positive), -1.0)
    };
    let (quotient, remainder) = sum.divided_by(values.len() as u64);
    Some(sign * round_scaled(&quotient, remainder, values.len() as u64))
}

/// The double nearest to (quotient + remainder/n)·2^-1074.
fn round_scaled(quotient: &Natural, remainder: u64, n: u64) -> f64 {
    let length = quotient.bit_length();
    // Below 2^53 units the doubles are spaced one unit apart (subnormals and the lowest
    // binade), so only the fraction remainder/n is rounded away.
    let (kept, shift, above_half, at_half) = if length <= 53 {
        let twice = u128::from(remainder) * 2;
        let n = u128::from(n);
        (quotient.low_bits(0), 0, twice > n, twice == n)
    } else {
        let shift = length - 53;
        let half_bit = quotient.bit(shift - 1);
        let below_half_bits = quotient.any_bit_below(shift - 1) || remainder != 0;
        (
            quotient.low_bits(shift),
            shift,
            half_bit && below_half_bits,
            half_bit && !below_half_bits,
        )
    };
    let rounded = if above_half || (at_half && kept & 1 == 1) {
        kept + 1
    } else {
        kept
    };
    // `rounded` has at most 54 bits and the product is representable, so both steps are exact.
    rounded as f64 * power_of_two(shift as i32 - 1074)
}

fn power_of_two(exponent: i32) -> f64 {
    if exponent >= -1022 {
        f64::from_bits(((exponent + 1023) as u64) << 52)
    } else {
        f64::from_bits(1 << (exponent + 1074))
    }
}

/// An unsigned big integer, little-endian 64-bit limbs without trailing zero limbs.
#[derive(Debug, Default, PartialEq, Eq)]
struct Natural(Vec<u64>);

impl Natural {
    fn add_shifted(&mut self, value: u64, shift: u32) {
        let limb = (shift / 64) as usize;
        let shifted = u128::from(value) << (shift % 64);
        let mut carry = 0u128;
        let mut addend = [shifted as u64, (shifted >> 64) as u64].into_iter();
        let mut i = limb;
        loop {
            let next = addend.next();
            if next.is_none() && carry == 0 {
                break;
            }
            if i >= self.0.len() {
                self.0.resize(i + 1, 0);
            }
            let sum = u128::from(self.0[i]) + u128::from(next.unwrap_or(0)) + carry;
            self.0[i] = sum as u64;
            carry = sum >> 64;
            i += 1;
        }
        self.trim();
    }

    /// self - other, for self >= other.
    fn minus(&self, other: &Natural) -> Natural {
        let mut borrow = 0i128;
        let mut limbs = Vec::with_capacity(self.0.len());
        for (i, &limb) in self.0.iter().enumerate() {
            let mut difference = i128::from(limb) - i128::from(other.0.get(i).copied().unwrap_or(0)) - borrow;
            borrow = i128::from(difference < 0);
            if difference < 0 {
                difference += 1 << 64;
            }
            limbs.push(difference as u64);
        }
        let mut result = Natural(limbs);
        result.trim();
        result
    }

    fn divided_by(&self, divisor: u64) -> (Natural, u64) {
        let mut remainder = 0u128;
        let mut limbs = vec![0; self.0.len()];
        for (i, &limb) in self.0.iter().enumerate().rev() {
            let current = (remainder << 64) | u128::from(limb);
            limbs[i] = (current / u128::from(divisor)) as u64;
            remainder = current % u128::from(divisor);
        }
        let mut quotient = Natural(limbs);
        quotient.trim();
        (quotient, remainder as u64)
    }

    fn bit_length(&self) -> u32 {
        match self.0.last() {
            Some(top) => (self.0.len() as u32 - 1) * 64 + (64 - top.leading_zeros()),
            None => 0,
        }
    }

    fn bit(&self, index: u32) -> bool {
        let limb = self.0.get((index / 64) as usize).copied().unwrap_or(0);
        limb >> (index % 64) & 1 == 1
    }

    fn any_bit_below(&self, index: u32) -> bool {
        let limb = (index / 64) as usize;
        let mask = (1u64 << (index % 64)) - 1;
        self.0[..limb].iter().any(|&l| l != 0) || self.0.get(limb).is_some_and(|&l| l & mask != 0)
    }

    /// The (at most 64) bits from `shift` upwards.
    fn low_bits(&self, shift: u32) -> u64 {
        let limb = (shift / 64) as usize;
        let offset = shift % 64;
        let low = self.0.get(limb).copied().unwrap_or(0) >> offset;
        let high = match offset {
            0 => 0,
            _ => self.0.get(limb + 1).copied().unwrap_or(0) << (64 - offset),
        };
        low | high
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }
}

impl PartialOrd for Natural {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Natural {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }
}
