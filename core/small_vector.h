// SmallVector: a vector of trivial elements (ids) that keeps up to N of them
// inline and allocates only beyond that. Device instructions' operand and
// release lists are a handful of buffer ids each, so with it building, copying
// or loading a program does not allocate twice per instruction. The interface
// is the part of std::vector that such lists need, plus comparison with and
// conversion to std::vector.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace meshtest {

template <class T, size_t N>
class SmallVector {
  static_assert(std::is_trivial_v<T>, "elements are copied as bytes");
  static_assert(N > 0 && N <= std::numeric_limits<uint32_t>::max());

 public:
  using value_type = T;
  using size_type = size_t;
  using difference_type = std::ptrdiff_t;
  using reference = T&;
  using const_reference = const T&;
  using pointer = T*;
  using const_pointer = const T*;
  using iterator = T*;
  using const_iterator = const T*;

  SmallVector() = default;
  SmallVector(std::initializer_list<T> init) { assign(init.begin(), init.size()); }
  explicit SmallVector(const std::vector<T>& v) { assign(v.data(), v.size()); }
  SmallVector(const SmallVector& other) { assign(other.data(), other.size()); }
  SmallVector(SmallVector&& other) noexcept { take(other); }
  ~SmallVector() { free_heap(); }

  SmallVector& operator=(const SmallVector& other) {
    if (this != &other) assign(other.data(), other.size());
    return *this;
  }
  SmallVector& operator=(SmallVector&& other) noexcept {
    if (this != &other) {
      free_heap();
      take(other);
    }
    return *this;
  }
  SmallVector& operator=(std::initializer_list<T> init) {
    assign(init.begin(), init.size());
    return *this;
  }

  // A std::vector with the same elements, for code written against one.
  operator std::vector<T>() const { return std::vector<T>(begin(), end()); }

  T* data() { return on_heap() ? heap_ : inline_; }
  const T* data() const { return on_heap() ? heap_ : inline_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t capacity() const { return capacity_; }

  iterator begin() { return data(); }
  iterator end() { return data() + size_; }
  const_iterator begin() const { return data(); }
  const_iterator end() const { return data() + size_; }
  const_iterator cbegin() const { return begin(); }
  const_iterator cend() const { return end(); }

  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }
  T& at(size_t i) { return data()[checked(i)]; }
  const T& at(size_t i) const { return data()[checked(i)]; }
  T& front() { return data()[0]; }
  const T& front() const { return data()[0]; }
  T& back() { return data()[size_ - 1]; }
  const T& back() const { return data()[size_ - 1]; }

  void push_back(T value) {  // by value: `value` may be an element of this vector
    if (size_ == capacity_) grow(size_ + 1);
    data()[size_++] = value;
  }
  void pop_back() { --size_; }
  void clear() { size_ = 0; }
  void reserve(size_t n) {
    if (n > capacity_) grow(n);
  }
  void resize(size_t n) {
    reserve(n);
    if (n > size_) std::fill(data() + size_, data() + n, T{});
    size_ = static_cast<uint32_t>(n);
  }
  // Replaces the elements by the `n` at `first` (which must not be ours).
  void assign(const T* first, size_t n) {
    size_ = 0;
    reserve(n);
    if (n > 0) std::memcpy(data(), first, n * sizeof(T));
    size_ = static_cast<uint32_t>(n);
  }

  friend bool operator==(const SmallVector& a, const SmallVector& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }
  friend bool operator==(const SmallVector& a, const std::vector<T>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  bool on_heap() const { return capacity_ > N; }
  size_t checked(size_t i) const {
    if (i >= size_) throw std::out_of_range("SmallVector::at: index " + std::to_string(i) + " >= size");
    return i;
  }
  // Moves the elements to a heap block of at least `min_capacity` elements.
  void grow(size_t min_capacity) {
    if (min_capacity > std::numeric_limits<uint32_t>::max()) throw std::length_error("SmallVector too long");
    const size_t capacity =
        std::min<size_t>(std::max<size_t>(min_capacity, 2 * size_t{capacity_}), std::numeric_limits<uint32_t>::max());
    T* block = static_cast<T*>(::operator new(capacity * sizeof(T)));
    if (size_ > 0) std::memcpy(block, data(), size_ * sizeof(T));
    free_heap();
    heap_ = block;
    capacity_ = static_cast<uint32_t>(capacity);
  }
  void free_heap() {
    if (on_heap()) ::operator delete(heap_);
    capacity_ = N;
  }
  // Takes `other`'s elements (its heap block, if any) and leaves it empty.
  void take(SmallVector& other) {
    if (other.on_heap()) {
      heap_ = other.heap_;
      capacity_ = other.capacity_;
      other.capacity_ = N;
    } else if (other.size_ > 0) {
      std::memcpy(inline_, other.inline_, other.size_ * sizeof(T));
    }
    size_ = other.size_;
    other.size_ = 0;
  }

  union {
    T inline_[N];
    T* heap_;
  };
  uint32_t size_ = 0;
  uint32_t capacity_ = N;
};

}  // namespace meshtest
